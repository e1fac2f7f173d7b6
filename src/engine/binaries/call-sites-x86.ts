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
  for (let i = 0; i + 6 <= b.length; i++) {
    if (b[i] !== 0xff) continue;
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

/** Counts `call rel32`/`jmp rel32` (a tail call) to a target address and `call/jmp *slot` through a target slot. */
export function decodeX86Calls(region: CodeRegion, is64: boolean, gotBase: number | undefined, targets: CallTargets, onCall: OnCall): void {
  const b = region.bytes;
  const base = region.address;
  const { min, max } = addressRange(targets.addresses);
  const hasSlots = targets.slots.size > 0;
  const end = b.length - 4; // i + 5 <= length
  for (let i = 0; i < end; i++) {
    const op = b[i];
    if (op === 0xe8 || op === 0xe9) {
      let dest = base + i + 5 + b.readInt32LE(i + 1);
      if (!is64) dest >>>= 0;
      if (dest < min || dest > max) continue;
      const target = targets.addresses.get(dest);
      if (target !== undefined) onCall(target, base + i);
    } else if (op === 0xff && hasSlots && i + 6 <= b.length) {
      const modrm = b[i + 1];
      let slot: number;
      if (modrm === 0x15 || modrm === 0x25) slot = is64 ? base + i + 6 + b.readInt32LE(i + 2) : b.readUInt32LE(i + 2);
      else if ((modrm === 0x93 || modrm === 0xa3) && !is64 && gotBase !== undefined) slot = (gotBase + b.readInt32LE(i + 2)) >>> 0;
      else continue;
      const target = targets.slots.get(slot);
      // A jump through the slot is a tail call, unless it is a stub itself.
      if (target !== undefined && (modrm === 0x15 || modrm === 0x93 || !targets.addresses.has(base + stubStart(b, i)))) onCall(target, base + i);
    }
  }
}
