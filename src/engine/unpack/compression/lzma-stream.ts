// Adapts an lzma-native decoding stream to decode-stream's Decoder. lzma-native restarts its decoder after a
// stream end to look for more members and resets its input counter; the restart is disabled so the decoder
// ends at the stream's end, and its input counter is then exactly the stream's compressed size.
import type { Transform } from 'node:stream';
import type { Decoder } from './decode-stream.js';

interface LzmaNativeStream extends Transform {
  totalIn(): number;
  nativeStream?: { _restart?: unknown };
}

/** `skipped`: bytes of the chunk before what the decoder is fed (a header it is not given), counted as consumed. */
export function lzmaDecoder(stream: Transform, skipped = 0): Decoder {
  const native = stream as LzmaNativeStream;
  if (native.nativeStream) native.nativeStream._restart = null;
  return { stream, consumed: () => skipped + native.totalIn() };
}
