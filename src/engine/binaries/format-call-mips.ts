// MIPS32 (either byte order) calls that pass a known address in an argument register: finds the instruction that
// completes the address (`addiu/ori aN, rX, %lo`), the call next to it (`jal`, a `j` tail call, `jalr`, `bal`,
// the address load possibly in the call's delay slot), and replays the straight-line code before the call to read
// what the argument registers hold (format-call-args.ts decides whether the address is the string's).
import type { RawCall } from './format-call-args.js';

const REG = ['zero', 'at', 'v0', 'v1', 'a0', 'a1', 'a2', 'a3', 't0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 's0', 's1', 's2', 's3', 's4', 's5', 's6', 's7', 't8', 't9', 'k0', 'k1', 'gp', 'sp', 'fp', 'ra'];
const A0 = 4;
const RA = 31;
/** Instructions replayed before a call: the argument set-up of one call, scheduled among its neighbours. */
const WINDOW = 16;
/** How far after the address load the call may come (GCC keeps it within a few instructions). */
const REACH = 8;

type Flow = 'call' | 'jump' | 'branch' | undefined;

/** Whether `w` transfers control: a call (links), an unconditional jump, or a conditional branch. */
function flowOf(w: number): Flow {
  const op = w >>> 26;
  const rs = (w >>> 21) & 31;
  const rt = (w >>> 16) & 31;
  if (op === 3) return 'call'; // jal
  if (op === 2) return 'jump'; // j
  if (op === 0 && (w & 0x3f) === 9) return 'call'; // jalr
  if (op === 0 && (w & 0x3f) === 8) return 'jump'; // jr
  if (op === 1 && rt >= 0x10 && rt <= 0x13) return rs === 0 && rt === 0x11 ? 'call' : 'branch'; // bal / bltzal, bgezal
  if (op === 4 && rs === 0 && rt === 0) return 'jump'; // b (beq zero, zero)
  if (op === 1 || (op >= 4 && op <= 7) || (op >= 0x14 && op <= 0x17)) return 'branch';
  return undefined;
}

/** A call that may take the string: jal, j (a tail call), jalr, jr to another register than ra, bal. */
function isCallSite(w: number): boolean {
  const flow = flowOf(w);
  if (flow === 'call') return true;
  return flow === 'jump' && (w >>> 26 === 2 || (w >>> 26 === 0 && ((w >>> 21) & 31) !== RA));
}

/** Register state while replaying: values (undefined: not a constant) and the instruction that set each. */
class Registers {
  readonly value: Array<number | undefined> = new Array(32).fill(undefined);
  readonly how: string[] = new Array(32).fill('');
  readonly at: number[] = new Array(32).fill(-1);
  constructor() {
    this.value[0] = 0;
  }
  set(r: number, v: number | undefined, how: string, at: number): void {
    if (r === 0) return;
    this.value[r] = v === undefined ? undefined : v >>> 0;
    this.how[r] = how;
    this.at[r] = at;
  }
  reset(): void {
    this.value.fill(undefined, 1);
  }
}

/** Replays one instruction: the constant-forming ones are computed, any other write makes its register unknown. */
function step(w: number, regs: Registers, at: number): void {
  const op = w >>> 26;
  const rs = (w >>> 21) & 31;
  const rt = (w >>> 16) & 31;
  const rd = (w >>> 11) & 31;
  const imm = w & 0xffff;
  const simm = (w << 16) >> 16;
  const v = regs.value;
  if (op === 0x0f) regs.set(rt, imm << 16, `lui ${REG[rt]}, 0x${imm.toString(16)}`, at);
  else if (op === 0x09 || op === 0x08) regs.set(rt, v[rs] === undefined ? undefined : v[rs]! + simm, rs === 0 ? `li ${REG[rt]}, ${simm}` : `addiu ${REG[rt]}, ${REG[rs]}, ${simm}`, at);
  else if (op === 0x0d) regs.set(rt, v[rs] === undefined ? undefined : v[rs]! | imm, rs === 0 ? `li ${REG[rt]}, ${imm}` : `ori ${REG[rt]}, ${REG[rs]}, 0x${imm.toString(16)}`, at);
  else if (op === 0) {
    const funct = w & 0x3f;
    if (funct === 0x21 || funct === 0x20 || funct === 0x25 || funct === 0x2d) {
      // addu/add/or/daddu: `move rd, rs` when one operand is zero
      const moved = rt === 0 ? rs : rs === 0 ? rt : -1;
      if (moved >= 0) regs.set(rd, v[moved], `move ${REG[rd]}, ${REG[moved]}`, at);
      else regs.set(rd, v[rs] === undefined || v[rt] === undefined ? undefined : funct === 0x25 ? v[rs]! | v[rt]! : v[rs]! + v[rt]!, `${funct === 0x25 ? 'or' : 'addu'} ${REG[rd]}`, at);
    } else if (funct === 9) regs.set(rd, undefined, 'jalr', at);
    else if (funct !== 8) regs.set(rd, undefined, '', at);
  } else if (op === 0x1c) regs.set(rd, undefined, '', at); // SPECIAL2 (mul)
  else if (op === 0x1f) {
    regs.set(rt, undefined, '', at); // SPECIAL3 (ext, ins, seb …)
    regs.set(rd, undefined, '', at);
  } else if (op === 3 || (op === 1 && rt >= 0x10 && rt <= 0x13)) regs.set(RA, undefined, '', at);
  else if (op === 2 || op === 1 || (op >= 4 && op <= 7) || (op >= 0x14 && op <= 0x17)) return; // branches write nothing
  else if ((op >= 0x28 && op <= 0x2f) || (op >= 0x38 && op <= 0x3f) || op === 0x33) return; // stores, cache, pref
  else regs.set(rt, undefined, '', at); // loads, slti, andi, xori, coprocessor moves
}

/**
 * Calls whose argument register `argument` (0 for a0) is completed with a low half whose low 12 bits are `low12`,
 * with the values of the `count` argument registers after it at the call. Instructions are read at multiples of
 * four from the start of `b` (a raw image loads at a page boundary; an ELF segment keeps its address's alignment).
 */
export function mipsCalls(b: Buffer, le: boolean, argument: number, count: number, low12: number): RawCall[] {
  const read = (i: number): number => (le ? b.readUInt32LE(i) : b.readUInt32BE(i));
  const reg = A0 + argument;
  const sites = new Set<number>();
  for (let i = 0; i + 4 <= b.length; i += 4) {
    const w = read(i);
    const op = w >>> 26;
    if ((op !== 0x09 && op !== 0x0d) || ((w >>> 16) & 31) !== reg || (w & 0xfff) !== low12) continue;
    // The address load sits in a call's delay slot, or the call follows within REACH instructions.
    if (i >= 4 && isCallSite(read(i - 4))) {
      sites.add(i - 4);
      continue;
    }
    for (let j = i + 4; j + 8 <= b.length && j <= i + REACH * 4; j += 4) {
      const flow = flowOf(read(j));
      if (flow === undefined) continue;
      if (isCallSite(read(j))) sites.add(j);
      break;
    }
  }
  const out: RawCall[] = [];
  for (const call of sites) {
    if (call + 8 > b.length) continue;
    const regs = new Registers();
    let resetAfter = -1;
    for (let k = Math.max(0, call - WINDOW * 4); k <= call + 4; k += 4) {
      const w = read(k);
      if (k !== call) {
        step(w, regs, k);
        const flow = flowOf(w);
        // Code after an unconditional transfer's delay slot is reached from elsewhere: its registers are unknown.
        if (flow === 'call' || flow === 'jump') resetAfter = k + 4;
      }
      if (k === resetAfter) regs.reset();
    }
    const address = regs.value[reg];
    if (address === undefined) continue;
    const w = read(call);
    const args: Array<number | undefined> = [];
    const setBy: string[] = [];
    for (let n = 1; n <= count && reg + n <= 7; n++) {
      const value = regs.value[reg + n];
      args.push(value === undefined ? undefined : value | 0);
      setBy.push(value === undefined ? `${REG[reg + n]} not a constant` : regs.how[reg + n]!);
    }
    const op = w >>> 26;
    const target =
      op === 2 || op === 3
        ? (base: number) => (((base + call + 4) & 0xf0000000) | ((w & 0x3ffffff) << 2)) >>> 0
        : op === 1
          ? (base: number) => base + call + 4 + ((w << 16) >> 16) * 4
          : regs.value[(w >>> 21) & 31] !== undefined
            ? () => regs.value[(w >>> 21) & 31]!
            : undefined;
    const name = op === 3 ? 'jal' : op === 2 ? 'j' : op === 1 ? 'bal' : `${(w & 0x3f) === 9 ? 'jalr' : 'jr'} ${REG[(w >>> 21) & 31]}`;
    out.push({ isa: le ? 'mips-le' : 'mips-be', call, load: regs.at[reg]!, address, args, setBy, callText: name, target });
  }
  return out.sort((x, y) => x.call - y.call);
}
