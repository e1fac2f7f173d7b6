// LZ4 block decoding into a buffer that may already hold earlier output: linked blocks of an LZ4 frame refer
// back into the previous 64 KiB. Written from the LZ4 Block Format description.
import { FormatError } from '../../format-error.js';

/**
 * Decodes `src` into `dst` starting at `from` (dst[0..from) is the dictionary) and returns the new end.
 * Never writes past `dst.length`.
 */
export function lz4DecodeInto(src: Buffer, dst: Buffer, from: number): number {
  let ip = 0;
  let op = from;
  const fail = (why: string): never => {
    throw new FormatError(`lz4: ${why} at input ${ip}`);
  };
  while (ip < src.length) {
    const token = src[ip++]!;
    let literals = token >> 4;
    if (literals === 15) {
      let b: number;
      do {
        if (ip >= src.length) fail('literal length past the end of the block');
        b = src[ip++]!;
        literals += b;
      } while (b === 255);
    }
    if (ip + literals > src.length) fail('literals past end of input');
    if (op + literals > dst.length) fail('output larger than the block maximum');
    src.copy(dst, op, ip, ip + literals);
    ip += literals;
    op += literals;
    if (ip >= src.length) break;
    if (ip + 2 > src.length) fail('match offset past the end of the block');
    const distance = src[ip]! | (src[ip + 1]! << 8);
    ip += 2;
    if (distance === 0 || distance > op) fail(`invalid match distance ${distance}`);
    let length = (token & 15) + 4;
    if ((token & 15) === 15) {
      let b: number;
      do {
        if (ip >= src.length) fail('match length past the end of the block');
        b = src[ip++]!;
        length += b;
      } while (b === 255);
    }
    if (op + length > dst.length) fail('output larger than the block maximum');
    if (distance >= length) {
      dst.copy(dst, op, op - distance, op - distance + length);
      op += length;
    } else {
      for (let i = 0; i < length; i++, op++) dst[op] = dst[op - distance]!;
    }
  }
  return op;
}
