// MIPS and MIPS64 call sites. Position-independent code (the Linux default) calls a global function by loading
// its GOT entry into $t9 and jumping to it: `lw $t9, off($gp)` (`ld` on MIPS64) … `jalr $t9`, with the slot at
// $gp + off. Non-PIC code calls with `jal target` (to a function or a .plt stub) or `bal target`.
// MIPS16 and microMIPS code is not decoded.
import { addressRange, type CallTargets, type CodeRegion, type OnCall } from './call-sites.js';

/**
 * How many instructions a `jalr $t9` may follow the load of $t9: compilers hoist the load above the argument
 * set-up (a dozen stores for a long sprintf), and a branch may jump over an epilogue to the call. Another
 * write to the register ends it sooner.
 */
const LOAD_TO_CALL_WINDOW = 64;

/** I-type opcodes whose rt is a destination: ALU immediates (addi … lui, daddi/daddiu) and loads. */
function writesRt(op: number): boolean {
  return (op >= 8 && op <= 15) || op === 0x18 || op === 0x19 || (op >= 0x20 && op <= 0x27) || op === 0x37;
}

/** Adds GNU ld's MIPS .plt entries (`lui $t7, %hi(slot); lw $t9, %lo(slot)($t7); jr $t9; …`) whose slot is a target. */
export function findMipsStubs(region: CodeRegion, le: boolean, targets: CallTargets): void {
  const b = region.bytes;
  for (let i = 0; i + 8 <= b.length; i += 4) {
    const lui = le ? b.readUInt32LE(i) : b.readUInt32BE(i);
    if (((lui & 0xffff0000) >>> 0) !== 0x3c0f0000) continue; // lui $t7, hi
    const lw = le ? b.readUInt32LE(i + 4) : b.readUInt32BE(i + 4);
    if (((lw & 0xffff0000) >>> 0) !== 0x8df90000) continue; // lw $t9, lo($t7)
    const slot = ((lui & 0xffff) * 0x10000 + ((lw << 16) >> 16)) >>> 0;
    const target = targets.slots.get(slot);
    if (target !== undefined) targets.addresses.set(region.address + i, target);
  }
}

/**
 * Counts `jal`/`bal`/`j` to a target address and `jalr $t9`/`jr $t9` whose $t9 holds a target slot's value: loaded
 * `lw/ld $t9, off($gp)` directly, or into another register first and moved (`move $t9, $v0`, unoptimised code).
 */
export function decodeMipsCalls(region: CodeRegion, le: boolean, gp: number | undefined, targets: CallTargets, onCall: OnCall): void {
  const b = region.bytes;
  const base = region.address;
  const { min, max } = addressRange(targets.addresses);
  const useGot = gp !== undefined && targets.slots.size > 0;
  // Per register: the target whose GOT slot it was loaded from (-1: none), and where.
  const loaded = new Int32Array(32).fill(-1);
  const loadedAt = new Float64Array(32);
  for (let i = (4 - (base % 4)) % 4; i + 4 <= b.length; i += 4) {
    const w = le ? b.readUInt32LE(i) : b.readUInt32BE(i);
    const op = w >>> 26;
    if (op === 3 || op === 2 || ((w & 0xffff0000) >>> 0) === 0x04110000) {
      // jal, j (a tail call): 256 MiB region of the delay slot; bal (bgezal $zero): pc-relative.
      const pc = base + i + 4;
      const dest = op === 3 || op === 2 ? pc - (pc % 0x10000000) + (w & 0x3ffffff) * 4 : pc + ((w << 16) >> 16) * 4;
      if (dest < min || dest > max) continue;
      const target = targets.addresses.get(dest);
      if (target !== undefined) onCall(target, base + i);
    } else if (!useGot) {
      continue;
    } else if ((op === 0x23 || op === 0x37) && ((w >>> 21) & 31) !== 29 && ((w >>> 21) & 31) !== 30) {
      // lw/ld $rt, off($base): $gp, or another register holding the GOT pointer (clang -O0 computes it into
      // $at). Any base but $sp/$fp is taken as the GOT pointer: the offset must then name a target's slot.
      const rt = (w >>> 16) & 31;
      loaded[rt] = targets.slots.get(gp + ((w << 16) >> 16)) ?? -1;
      loadedAt[rt] = i;
    } else if (op === 0 && ((w >>> 11) & 31) === 25 && ((w >>> 16) & 31) === 0 && ((w & 0x3f) === 0x25 || (w & 0x3f) === 0x21 || (w & 0x3f) === 0x2d)) {
      // move $t9, $rs (or/addu/daddu $t9, $rs, $zero)
      const rs = (w >>> 21) & 31;
      loaded[25] = loaded[rs]!;
      loadedAt[25] = loadedAt[rs]!;
    } else if (w === 0x0320f809 || w === 0x03200008 || w === 0x03200009) {
      // jalr $ra, $t9; jr $t9 / jalr $zero, $t9 (a tail call)
      const target = loaded[25]!;
      if (target >= 0 && i - loadedAt[25]! <= LOAD_TO_CALL_WINDOW * 4) onCall(target, base + i);
      loaded[25] = -1;
    } else if (op === 0 ? ((w >>> 11) & 31) === 25 : writesRt(op) && ((w >>> 16) & 31) === 25) {
      loaded[25] = -1; // another write to $t9 (ALU result or a load from the stack)
    } else if (op === 0x23 || op === 0x37) {
      loaded[(w >>> 16) & 31] = -1; // a load from the stack replaces the register
    }
  }
}
