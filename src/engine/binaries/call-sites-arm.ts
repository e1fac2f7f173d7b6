// ARM (A32 and Thumb) and AArch64 call sites: `bl`/`blx` to a PLT entry or to a statically linked function.
// A32 and Thumb code are both decoded everywhere (mapping symbols are often stripped); a call counts only when
// its destination is exactly a target, so decoding the wrong instruction set finds nothing.
import { addressRange, type CallTargets, type CodeRegion, type OnCall } from './call-sites.js';

/** A32 modified immediate: 8 bits rotated right by twice the 4-bit rotation. */
function armImmediate(field: number): number {
  const rot = ((field >>> 8) & 0xf) * 2;
  const imm = field & 0xff;
  return rot === 0 ? imm : ((imm >>> rot) | (imm << (32 - rot))) >>> 0;
}

/**
 * Adds GNU ld's A32 PLT entries (`add ip, pc, #a; add ip, ip, #b [; add ip, ip, #c]; ldr pc, [ip, #d]!`) whose GOT
 * slot is a target, and the Thumb `bx pc` veneer ld puts before an entry that Thumb code reaches with `b.w`.
 */
export function findArmStubs(region: CodeRegion, le: boolean, targets: CallTargets): void {
  const b = region.bytes;
  const read = (at: number): number => (le ? b.readUInt32LE(at) : b.readUInt32BE(at));
  for (let i = 0; i + 8 <= b.length; i += 4) {
    const first = read(i);
    if (((first & 0xfffff000) >>> 0) !== 0xe28fc000) continue; // add ip, pc, #imm
    let ip = (region.address + i + 8 + armImmediate(first)) >>> 0;
    let j = i + 4;
    for (; j + 4 <= b.length && j < i + 16; j += 4) {
      const w = read(j);
      if (((w & 0xfffff000) >>> 0) === 0xe28cc000) ip = (ip + armImmediate(w)) >>> 0; // add ip, ip, #imm
      else break;
    }
    if (j + 4 > b.length) continue;
    const ldr = read(j);
    if (((ldr & 0xff7ff000) >>> 0) !== 0xe53cf000) continue; // ldr pc, [ip, #±imm]!
    const slot = (ldr & 0x00800000 ? ip + (ldr & 0xfff) : ip - (ldr & 0xfff)) >>> 0;
    const target = targets.slots.get(slot);
    if (target === undefined) continue;
    targets.addresses.set(region.address + i, target);
    if (i >= 4 && b.readUInt16LE(i - 4) === 0x4778) targets.addresses.set(region.address + i - 4, target); // bx pc; (nop | b.n .-4)
  }
}

/** Counts A32 `bl`/`blx imm`/`b` and Thumb `bl`/`blx`/`b.w` (tail calls) whose destination is a target address. */
export function decodeArmCalls(region: CodeRegion, le: boolean, targets: CallTargets, onCall: OnCall): void {
  const b = region.bytes;
  const base = region.address;
  const { min, max } = addressRange(targets.addresses);
  const start = (4 - (base % 4)) % 4;
  for (let i = start; i + 4 <= b.length; i += 4) {
    const w = le ? b.readUInt32LE(i) : b.readUInt32BE(i);
    let dest: number;
    if (((w & 0x0e000000) >>> 0) === 0x0a000000 && w >>> 28 !== 0xf) dest = base + i + 8 + (((w << 8) >> 8) << 2);
    else if (((w & 0xfe000000) >>> 0) === 0xfa000000) dest = base + i + 8 + (((w << 8) >> 8) << 2) + ((w >>> 23) & 2);
    else continue;
    dest >>>= 0;
    if (dest < min || dest > max) continue;
    const target = targets.addresses.get(dest);
    if (target !== undefined) onCall(target, base + i);
  }
  for (let i = base % 2; i + 4 <= b.length; i += 2) {
    const hw1 = le ? b.readUInt16LE(i) : b.readUInt16BE(i);
    if (((hw1 & 0xf800) >>> 0) !== 0xf000) continue;
    const hw2 = le ? b.readUInt16LE(i + 2) : b.readUInt16BE(i + 2);
    // bl: 11x1, blx: 11x0 (even), b.w: 10x1.
    if ((hw2 & 0xc000) !== 0xc000 && (hw2 & 0xd000) !== 0x9000) continue;
    const s = (hw1 >>> 10) & 1;
    const i1 = ~(((hw2 >>> 13) & 1) ^ s) & 1;
    const i2 = ~(((hw2 >>> 11) & 1) ^ s) & 1;
    const high = (s << 24) | (i1 << 23) | (i2 << 22) | ((hw1 & 0x3ff) << 12);
    let dest: number;
    if (hw2 & 0x1000) dest = base + i + 4 + (((high | ((hw2 & 0x7ff) << 1)) << 7) >> 7);
    else if ((hw2 & 1) === 0) dest = ((base + i + 4) & ~3) + (((high | (hw2 & 0x7fe) << 1) << 7) >> 7);
    else continue;
    dest >>>= 0;
    if (dest < min || dest > max) continue;
    const target = targets.addresses.get(dest);
    if (target !== undefined) onCall(target, base + i);
  }
}

/** Adds AArch64 PLT entries (`[bti c;] adrp x16, page; ldr x17, [x16, #off]; ...`) whose GOT slot is a target. */
export function findAarch64Stubs(region: CodeRegion, targets: CallTargets): void {
  const b = region.bytes;
  for (let i = 0; i + 8 <= b.length; i += 4) {
    const adrp = b.readUInt32LE(i);
    if (((adrp & 0x9f00001f) >>> 0) !== 0x90000010) continue; // adrp x16, ...
    const ldr = b.readUInt32LE(i + 4);
    if (((ldr & 0xffc003ff) >>> 0) !== 0xf9400211) continue; // ldr x17, [x16, #imm]
    const pc = region.address + i;
    const pages = (((((adrp >>> 5) & 0x7ffff) << 2) | ((adrp >>> 29) & 3)) << 11) >> 11;
    const slot = pc - (pc % 4096) + pages * 4096 + ((ldr >>> 10) & 0xfff) * 8;
    const target = targets.slots.get(slot);
    if (target === undefined) continue;
    const start = i >= 4 && b.readUInt32LE(i - 4) === 0xd503245f ? i - 4 : i; // bti c
    targets.addresses.set(region.address + start, target);
  }
}

/** Counts AArch64 `bl` and `b` (tail calls) whose destination is a target address (A64 code is little-endian in every ELF). */
export function decodeAarch64Calls(region: CodeRegion, targets: CallTargets, onCall: OnCall): void {
  const b = region.bytes;
  const base = region.address;
  const { min, max } = addressRange(targets.addresses);
  for (let i = (4 - (base % 4)) % 4; i + 4 <= b.length; i += 4) {
    const w = b.readUInt32LE(i);
    if ((w & 0x7c000000) !== 0x14000000) continue; // b: 000101, bl: 100101
    const dest = base + i + ((w << 6) >> 6) * 4;
    if (dest < min || dest > max) continue;
    const target = targets.addresses.get(dest);
    if (target !== undefined) onCall(target, base + i);
  }
}
