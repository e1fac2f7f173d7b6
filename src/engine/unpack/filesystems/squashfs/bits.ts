// Packed C bitfield layouts, as SquashFS 3 stores its inodes and directory entries. GCC allocates bitfields
// from the least significant bit on little-endian targets and from the most significant bit on big-endian
// ones; squashfs-tools writes the other byte order by swapping, so one bit-position table serves both:
// on little-endian images bit n is bit (n mod 8) of byte n/8, on big-endian images it is bit 7 − (n mod 8).
import { FormatError } from '../../../format-error.js';

/** name → [bit position, width in bits]; widths up to 64 (values above 2^53 lose precision, as for u64). */
export type BitLayout = Record<string, readonly [number, number]>;

export function bitLayoutSize(layout: BitLayout): number {
  let bits = 0;
  for (const [pos, width] of Object.values(layout)) bits = Math.max(bits, pos + width);
  return Math.ceil(bits / 8);
}

export function readBits(buf: Buffer, at: number, pos: number, width: number, endian: 'le' | 'be'): number {
  let value = 0;
  if (endian === 'le') {
    for (let i = width - 1; i >= 0; i--) {
      const bit = pos + i;
      value = value * 2 + ((buf[at + (bit >> 3)]! >> (bit & 7)) & 1);
    }
  } else {
    for (let i = 0; i < width; i++) {
      const bit = pos + i;
      value = value * 2 + ((buf[at + (bit >> 3)]! >> (7 - (bit & 7))) & 1);
    }
  }
  return value;
}

/** Parses a bitfield layout at `at` of `buf`; throws FormatError when the buffer is too short. */
export function parseBits<L extends BitLayout>(layout: L, buf: Buffer, endian: 'le' | 'be', at = 0): { [K in keyof L]: number } {
  const size = bitLayoutSize(layout);
  if (buf.length - at < size) throw new FormatError(`truncated structure: need ${size} bytes, have ${buf.length - at}`);
  const out: Record<string, number> = {};
  for (const [name, [pos, width]] of Object.entries(layout)) out[name] = readBits(buf, at, pos, width, endian);
  return out as { [K in keyof L]: number };
}
