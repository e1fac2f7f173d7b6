// x86 and x86-64 call sites. Imported functions are called through a jump stub (`jmp *slot`: an ELF PLT,
// .plt.sec or .plt.got entry, or a PE import thunk) with `call rel32` (e8), or directly through the slot with
// `call *slot` (ff 15: ELF -fno-plt and MSVC's usual `call [__imp_f]`). 32-bit PIC code addresses the GOT
// through %ebx (`jmp *disp(%ebx)` ff a3, `call *disp(%ebx)` ff 93), with %ebx = DT_PLTGOT. Tail calls (the
// same with `jmp`: e9, ff 25, ff a3) count as call sites, except the stubs' own jumps (stub addresses).
import { addressRange, type CallTargets, type CodeRegion, type OnCall } from './call-sites.js';

/** Where a stub whose `jmp *slot` is at `i` starts: before its `endbr64`/`endbr32` and `bnd` prefixes. */
function stubStart(b: Buffer, i: number): number {
  let start = i;
  if (start >= 1 && b[start - 1] === 0xf2) start--;
  if (start >= 4 && b[start - 4] === 0xf3 && b[start - 3] === 0x0f && b[start - 2] === 0x1e && (b[start - 1] === 0xfa || b[start - 1] === 0xfb)) start -= 4;
  return start;
}

/**
 * Adds `jmp *slot` stubs whose slot is a target to `targets.addresses`. A stub starts at its optional
 * `endbr64`/`endbr32` (f3 0f 1e fa/fb) and `bnd` (f2) prefixes, which is where calls land.
 */
export function findX86Stubs(region: CodeRegion, is64: boolean, gotBase: number | undefined, targets: CallTargets): void {
  const b = region.bytes;
  for (let i = b.indexOf(0xff); i !== -1 && i + 6 <= b.length; i = b.indexOf(0xff, i + 1)) {
    const modrm = b[i + 1];
    let slot: number;
    if (modrm === 0x25) slot = is64 ? region.address + i + 6 + b.readInt32LE(i + 2) : b.readUInt32LE(i + 2);
    else if (modrm === 0xa3 && !is64 && gotBase !== undefined) slot = (gotBase + b.readInt32LE(i + 2)) >>> 0;
    else continue;
    const target = targets.slots.get(slot);
    if (target === undefined) continue;
    targets.addresses.set(region.address + stubStart(b, i), target);
  }
}

const CALL_SLOT = Buffer.from([0xff, 0x15]);
const JMP_SLOT = Buffer.from([0xff, 0x25]);
const CALL_EBX = Buffer.from([0xff, 0x93]);
const JMP_EBX = Buffer.from([0xff, 0xa3]);

/**
 * Counts `call rel32`/`jmp rel32` (a tail call) to a target address and `call/jmp *slot` through a target slot.
 * Candidates are found with Buffer.indexOf (native memchr/memmem), one opcode at a time, instead of a JavaScript
 * loop over every byte.
 */
export function decodeX86Calls(region: CodeRegion, is64: boolean, gotBase: number | undefined, targets: CallTargets, onCall: OnCall): void {
  const b = region.bytes;
  const base = region.address;
  const { min, max } = addressRange(targets.addresses);
  if (targets.addresses.size) {
    for (const opcode of [0xe8, 0xe9]) {
      for (let i = b.indexOf(opcode); i !== -1 && i + 5 <= b.length; i = b.indexOf(opcode, i + 1)) {
        let dest = base + i + 5 + b.readInt32LE(i + 1);
        if (!is64) dest >>>= 0;
        if (dest < min || dest > max) continue;
        const target = targets.addresses.get(dest);
        if (target !== undefined) onCall(target, base + i);
      }
    }
  }
  if (!targets.slots.size) return;
  const needles = is64 || gotBase === undefined ? [CALL_SLOT, JMP_SLOT] : [CALL_SLOT, JMP_SLOT, CALL_EBX, JMP_EBX];
  for (const needle of needles) {
    const ebx = needle[1] === 0x93 || needle[1] === 0xa3;
    const tail = needle[1] === 0x25 || needle[1] === 0xa3;
    for (let i = b.indexOf(needle); i !== -1 && i + 6 <= b.length; i = b.indexOf(needle, i + 1)) {
      const slot = ebx ? (gotBase! + b.readInt32LE(i + 2)) >>> 0 : is64 ? base + i + 6 + b.readInt32LE(i + 2) : b.readUInt32LE(i + 2);
      const target = targets.slots.get(slot);
      // A jump through the slot is a tail call, unless it is a stub itself.
      if (target !== undefined && (!tail || !targets.addresses.has(base + stubStart(b, i)))) onCall(target, base + i);
    }
  }
}
