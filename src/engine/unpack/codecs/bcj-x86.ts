// The x86 branch converter (BCJ) decoder of the LZMA SDK, as EDK II applies it after LZMA in LzmaF86 sections:
// relative CALL/JMP targets (E8/E9 + 32-bit offset) were made absolute by the encoder; this makes them relative
// again. Written from the filter's description in the LZMA SDK (Bra86.c) and the .xz format specification.

const ALLOWED = [true, true, true, false, true, false, false, false];
const BIT_NUMBER = [0, 1, 2, 2, 3, 3, 3, 3];
const isMsByte = (b: number) => b === 0 || b === 0xff;

/** Decodes `data` in place (start address 0) and returns it. */
export function bcjX86Decode(data: Buffer): Buffer {
  const size = data.length;
  if (size < 5) return data;
  const ip = 5;
  let pos = 0;
  let prevPos = -1;
  let prevMask = 0;
  const limit = size - 4;
  while (true) {
    while (pos < limit && (data[pos]! & 0xfe) !== 0xe8) pos++;
    if (pos >= limit) break;
    const distance = pos - prevPos;
    if (distance > 3) {
      prevMask = 0;
    } else {
      prevMask = (prevMask << (distance - 1)) & 7;
      if (prevMask !== 0) {
        const b = data[pos + 4 - BIT_NUMBER[prevMask]!]!;
        if (!ALLOWED[prevMask] || isMsByte(b)) {
          prevPos = pos;
          prevMask = ((prevMask << 1) & 7) | 1;
          pos++;
          continue;
        }
      }
    }
    prevPos = pos;
    if (isMsByte(data[pos + 4]!)) {
      let src = data.readUInt32LE(pos + 1);
      let dest: number;
      while (true) {
        dest = (src - (ip + pos)) >>> 0;
        if (prevMask === 0) break;
        const index = BIT_NUMBER[prevMask]! * 8;
        if (!isMsByte((dest >>> (24 - index)) & 0xff)) break;
        src = (dest ^ (2 ** (32 - index) - 1)) >>> 0;
      }
      // The top byte is sign-extended from bit 24.
      dest = ((dest & 0x00ffffff) | ((dest >>> 24) & 1 ? 0xff000000 : 0)) >>> 0;
      data.writeUInt32LE(dest, pos + 1);
      pos += 5;
    } else {
      prevMask = ((prevMask << 1) & 7) | 1;
      pos++;
    }
  }
  return data;
}
