// Whether a candidate LZMA1 stream breaks before its first few bytes come out, answered without liblzma. The LZMA
// handler's signature is weak (a properties byte, 00 00, a plausible dictionary), so a 64 MB image of binaries gave
// 6,378 candidates, and each probe through lzma-native (a native stream, a 64 KiB output vector, an Error when it
// breaks) took 40-60 µs of the engine's thread: about 0.27 s. Random bytes break the decoder within a few symbols.
//
// Only the error liblzma reports as well is taken as a break: a match or repeat reaching before the first byte
// (liblzma's dict_is_distance_valid, LZMA_DATA_ERROR), at the same symbol, since both decode the same bits the same
// way up to it. Anything else (the bytes run out, the end marker, a range coder that only this decoder doubts, the
// limit reached) leaves the question to liblzma, as before.
import type { LzmaProps } from '../../codecs/blocks.js';
import { Broken, Lzma1Decoder, type ByteInput } from './lzma1-decoder.js';

class BufferInput implements ByteInput {
  pos = 0;
  readonly ready = true; // every byte there is, is here

  constructor(private readonly data: Buffer) {}

  byte(): number {
    if (this.pos >= this.data.length) throw new Broken('input');
    return this.data[this.pos++]!;
  }
}

/** One decoder per properties and history, reset for each stream: its tables cost more to make than most probes. */
const decoders = new Map<string, Lzma1Decoder>();

function decoderFor({ lc, lp, pb }: Pick<LzmaProps, 'lc' | 'lp' | 'pb'>, before: number): Lzma1Decoder {
  // a history as long as the output looked at: no match can reach further back than that without breaking anyway
  const key = `${lc}/${lp}/${pb}/${before}`;
  let decoder = decoders.get(key);
  if (decoder) decoder.reset();
  else decoders.set(key, (decoder = new Lzma1Decoder({ lc, lp, pb }, Math.max(before, 1))));
  return decoder;
}

/**
 * True when the raw LZMA1 stream in `stream` (its range coder's first byte first) certainly breaks in liblzma before
 * `before` bytes are out. False when it does not, or when that is not certain.
 */
export function breaksBefore(stream: Buffer, props: Pick<LzmaProps, 'lc' | 'lp' | 'pb'>, before: number): boolean {
  const decoder = decoderFor(props, before);
  const input = new BufferInput(stream);
  try {
    if (!decoder.start(input)) return false;
    decoder.run(before);
    return false;
  } catch (error) {
    if (!(error instanceof Broken)) throw error;
    return error.reason === 'distance' && decoder.total < before;
  }
}
