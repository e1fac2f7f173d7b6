// JFFS2's "rtime" compressor: each output byte is followed by a repeat count that copies from the previous
// position where the same byte value was written. Written from the description of Linux fs/jffs2/compr_rtime.c.
import { FormatError } from '../../format-error.js';

/** Decodes an rtime block to exactly `outputSize` bytes. */
export function rtimeDecompress(data: Buffer, outputSize: number): Buffer {
  const out = Buffer.alloc(outputSize);
  const positions = new Int32Array(256);
  let ip = 0;
  let op = 0;
  while (op < outputSize) {
    if (ip + 2 > data.length) throw new FormatError(`rtime: input ends at ${ip} with ${outputSize - op} bytes still to produce`);
    const value = data[ip++]!;
    out[op++] = value;
    let repeat = data[ip++]!;
    let back = positions[value]!;
    positions[value] = op;
    if (repeat > outputSize - op) throw new FormatError(`rtime: repeat of ${repeat} overruns the ${outputSize}-byte output`);
    // Byte by byte: the source may overlap what is being written.
    while (repeat-- > 0) out[op++] = out[back++]!;
  }
  return out;
}
