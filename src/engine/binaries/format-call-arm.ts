// 32-bit ARM (A32 and Thumb, little-endian) calls that pass a known address in an argument register: finds the
// instruction that loads the address (`ldr rN, [pc, #imm]` from a literal pool, or `movw rN, #lo`; `movt` then
// completes it), the call after it (`bl`, `blx`, a `b` tail call), and replays the straight-line code before the
// call to read what the argument registers hold (format-call-args.ts decides whether the address is the string's).
import type { RawCall } from './format-call-args.js';

/** Instructions replayed before a call, and how far after the address load the call may come. */
const WINDOW = 16;
const REACH = 8;

/** A32 modified immediate: 8 bits rotated right by twice the 4-bit rotation. */
function armImmediate(field: number): number {
  const rot = ((field >>> 8) & 0xf) * 2;
  const imm = field & 0xff;
  return rot === 0 ? imm : ((imm >>> rot) | (imm << (32 - rot))) >>> 0;
}

class Registers {
  readonly value: Array<number | undefined> = new Array(16).fill(undefined);
  readonly how: string[] = new Array(16).fill('');
  readonly at: number[] = new Array(16).fill(-1);
  set(r: number, v: number | undefined, how: string, at: number): void {
    this.value[r] = v === undefined ? undefined : v >>> 0;
    this.how[r] = how;
    this.at[r] = at;
  }
  forget(...regs: number[]): void {
    for (const r of regs) this.value[r & 15] = undefined;
  }
  forgetList(list: number): void {
    for (let r = 0; r < 16; r++) if (list & (1 << r)) this.value[r] = undefined;
  }
  reset(): void {
    this.value.fill(undefined);
  }
}

type Flow = 'call' | 'jump' | 'branch' | undefined;
interface Decoded {
  length: 2 | 4;
  flow: Flow;
  /** For calls and tail calls: the destination offset (pc-relative) or register. */
  dest?: { offset: number } | { register: number };
  text?: string;
}

const word = (b: Buffer, i: number): number => (i >= 0 && i + 4 <= b.length ? b.readUInt32LE(i) : -1);
const pool = (b: Buffer, at: number): number | undefined => (at % 4 === 0 && at >= 0 && at + 4 <= b.length ? b.readUInt32LE(at) : undefined);

/** Decodes and replays one A32 instruction at `i`. */
function stepArm(b: Buffer, i: number, regs: Registers): Decoded {
  const w = word(b, i);
  const cond = w >>> 28;
  const rd = (w >>> 12) & 15;
  const rn = (w >>> 16) & 15;
  const v = regs.value;
  if (((w & 0x0e000000) >>> 0) === 0x0a000000 && cond !== 0xf) {
    const offset = i + 8 + (((w << 8) >> 8) << 2);
    if (w & 0x01000000) return { length: 4, flow: 'call', dest: { offset }, text: 'bl' };
    return { length: 4, flow: cond === 0xe ? 'jump' : 'branch', dest: { offset }, text: 'b' };
  }
  if (((w & 0xfe000000) >>> 0) === 0xfa000000) return { length: 4, flow: 'call', dest: { offset: i + 8 + (((w << 8) >> 8) << 2) + ((w >>> 23) & 2) }, text: 'blx' };
  if ((w & 0x0ffffff0) === 0x012fff30) return { length: 4, flow: 'call', dest: { register: w & 15 }, text: `blx r${w & 15}` };
  if ((w & 0x0ffffff0) === 0x012fff10) return { length: 4, flow: cond === 0xe ? 'jump' : 'branch', dest: { register: w & 15 }, text: `bx r${w & 15}` };
  if (cond === 0xe) {
    if ((w & 0x0fef0000) === 0x03a00000) return set(regs, rd, armImmediate(w & 0xfff), `mov r${rd}, #${armImmediate(w & 0xfff)}`, i);
    if ((w & 0x0fef0000) === 0x03e00000) return set(regs, rd, ~armImmediate(w & 0xfff), `mvn r${rd}, #${armImmediate(w & 0xfff)}`, i);
    if ((w & 0x0ff00000) === 0x03000000) return set(regs, rd, ((w >>> 4) & 0xf000) | (w & 0xfff), `movw r${rd}, #${((w >>> 4) & 0xf000) | (w & 0xfff)}`, i);
    if ((w & 0x0ff00000) === 0x03400000) return set(regs, rd, v[rd] === undefined ? undefined : (v[rd]! & 0xffff) | ((((w >>> 4) & 0xf000) | (w & 0xfff)) << 16), `movt r${rd}`, i);
    if ((w & 0x0fef0ff0) === 0x01a00000 && rd !== 15) return set(regs, rd, v[w & 15], `mov r${rd}, r${w & 15}`, i);
    if ((w & 0x0fe00000) === 0x02800000 && rn !== 15) return set(regs, rd, v[rn] === undefined ? undefined : v[rn]! + armImmediate(w & 0xfff), `add r${rd}, r${rn}, #${armImmediate(w & 0xfff)}`, i);
    if ((w & 0x0fe00000) === 0x02400000 && rn !== 15) return set(regs, rd, v[rn] === undefined ? undefined : v[rn]! - armImmediate(w & 0xfff), `sub r${rd}, r${rn}, #${armImmediate(w & 0xfff)}`, i);
    if ((w & 0x0fe00000) === 0x03800000 && rn !== 15) return set(regs, rd, v[rn] === undefined ? undefined : v[rn]! | armImmediate(w & 0xfff), `orr r${rd}, r${rn}, #${armImmediate(w & 0xfff)}`, i);
    if ((w & 0x0f7f0000) === 0x051f0000) {
      const imm = w & 0xfff;
      return set(regs, rd, pool(b, i + 8 + (w & 0x00800000 ? imm : -imm)), `ldr r${rd}, [pc, #${w & 0x00800000 ? imm : -imm}]`, i);
    }
  }
  // Any other write makes its registers unknown; a write to pc is a jump.
  const cls = (w >>> 25) & 7;
  let written: number[] = [];
  if (cls <= 1) {
    const opcode = (w >>> 21) & 15;
    if (cls === 1 || (w & 0x90) !== 0x90) written = opcode >= 8 && opcode <= 11 && w & 0x00100000 ? [] : [rd]; // tst, teq, cmp, cmn write none
    else written = [rd, rd + 1, rn]; // multiplies, halfword and doubleword transfers
  } else if (cls === 2 || cls === 3) {
    if (cls === 3 && w & 0x10) written = [rd, rn]; // media instructions
    else written = [...(w & 0x00100000 ? [rd] : []), ...(w & 0x00200000 || !(w & 0x01000000) ? [rn] : [])];
  } else if (cls === 4) {
    if (w & 0x00100000) regs.forgetList(w & 0xffff);
    if (w & 0x00200000) written = [rn];
    if (w & 0x00100000 && w & 0x8000) written.push(15);
  } else if (cls === 7 && ((w >>> 24) & 15) === 15) {
    return { length: 4, flow: 'call' }; // svc
  } else if (cls >= 6) written = [rd]; // coprocessor transfers
  regs.forget(...written);
  return { length: 4, flow: written.includes(15) ? (cond === 0xe ? 'jump' : 'branch') : undefined };
}

function set(regs: Registers, r: number, value: number | undefined, how: string, at: number): Decoded {
  regs.set(r, value, how, at);
  return { length: 4, flow: undefined };
}

const half = (b: Buffer, i: number): number => (i >= 0 && i + 2 <= b.length ? b.readUInt16LE(i) : -1);

/** Decodes and replays one Thumb instruction at `i`; `conditional` (inside an IT block) replays no constant. */
function stepThumb(b: Buffer, i: number, regs: Registers, conditional: boolean): Decoded & { it?: number } {
  const h = half(b, i);
  const v = regs.value;
  if (h >>> 11 >= 0x1d) {
    const h2 = half(b, i + 2);
    const wide = (d: Decoded): Decoded => ({ ...d, length: 4 });
    if ((h & 0xf800) === 0xf000 && h2 >= 0 && (h2 & 0x8000)) {
      const s = (h >>> 10) & 1;
      const i1 = ~(((h2 >>> 13) & 1) ^ s) & 1;
      const i2 = ~(((h2 >>> 11) & 1) ^ s) & 1;
      const high = (s << 24) | (i1 << 23) | (i2 << 22) | ((h & 0x3ff) << 12);
      if ((h2 & 0xd000) === 0xd000) return { length: 4, flow: 'call', dest: { offset: i + 4 + (((high | ((h2 & 0x7ff) << 1)) << 7) >> 7) }, text: 'bl' };
      if ((h2 & 0xd001) === 0xc000) return { length: 4, flow: 'call', dest: { offset: ((i + 4) & ~3) + (((high | ((h2 & 0x7fe) << 1)) << 7) >> 7) }, text: 'blx' };
      if ((h2 & 0xd000) === 0x9000) return { length: 4, flow: 'jump', dest: { offset: i + 4 + (((high | ((h2 & 0x7ff) << 1)) << 7) >> 7) }, text: 'b.w' };
      if ((h2 & 0xd000) === 0x8000 && (h & 0x0380) !== 0x0380) return { length: 4, flow: 'branch' };
    }
    const rd = (h2 >>> 8) & 15;
    const imm16 = ((h & 0xf) << 12) | (((h >>> 10) & 1) << 11) | (((h2 >>> 12) & 7) << 8) | (h2 & 0xff);
    if (!conditional && (h & 0xfbf0) === 0xf240 && !(h2 & 0x8000)) return wide(set(regs, rd, imm16, `movw r${rd}, #${imm16}`, i));
    if (!conditional && (h & 0xfbf0) === 0xf2c0 && !(h2 & 0x8000)) return wide(set(regs, rd, v[rd] === undefined ? undefined : (v[rd]! & 0xffff) | (imm16 << 16), `movt r${rd}`, i));
    if ((h & 0xffd0) === 0xe890 || (h & 0xffd0) === 0xe910) {
      regs.forgetList(h2);
      if (h & 0x20) regs.forget(h & 15);
      return { length: 4, flow: h2 & 0x8000 ? 'jump' : undefined };
    }
    if ((h & 0xfe10) === 0xf800 || (h & 0xfe50) === 0xe840) regs.forget(h & 15); // stores: only a base write-back
    else regs.forget(h & 15, rd, h2 >>> 12);
    return { length: 4, flow: undefined };
  }
  const lo = h & 7;
  const mid = (h >>> 8) & 7;
  const rm = (h >>> 3) & 7;
  const constant = (r: number, value: number | undefined, how: string): Decoded => (conditional ? (regs.forget(r), { length: 2, flow: undefined }) : { ...set(regs, r, value, how, i), length: 2 });
  if ((h & 0xf800) === 0x2000) return constant(mid, h & 0xff, `movs r${mid}, #${h & 0xff}`);
  if ((h & 0xf800) === 0x4800) return constant(mid, pool(b, ((i + 4) & ~3) + (h & 0xff) * 4), `ldr r${mid}, [pc, #${(h & 0xff) * 4}]`);
  if ((h & 0xf800) === 0x3000) return constant(mid, v[mid] === undefined ? undefined : v[mid]! + (h & 0xff), `adds r${mid}, #${h & 0xff}`);
  if ((h & 0xf800) === 0x3800) return constant(mid, v[mid] === undefined ? undefined : v[mid]! - (h & 0xff), `subs r${mid}, #${h & 0xff}`);
  if ((h & 0xfe00) === 0x1c00) return constant(lo, v[rm] === undefined ? undefined : v[rm]! + ((h >>> 6) & 7), `adds r${lo}, r${rm}, #${(h >>> 6) & 7}`);
  if ((h & 0xf800) === 0x0000) return constant(lo, v[rm] === undefined ? undefined : v[rm]! << ((h >>> 6) & 31), ((h >>> 6) & 31) === 0 ? `movs r${lo}, r${rm}` : `lsls r${lo}, r${rm}, #${(h >>> 6) & 31}`);
  if ((h & 0xff00) === 0x4600) {
    const d = lo | ((h >>> 4) & 8);
    const m = (h >>> 3) & 15;
    if (d === 15) return { length: 2, flow: 'jump', dest: { register: m } };
    return constant(d, v[m], `mov r${d}, r${m}`);
  }
  if ((h & 0xff87) === 0x4780) return { length: 2, flow: 'call', dest: { register: (h >>> 3) & 15 }, text: `blx r${(h >>> 3) & 15}` };
  if ((h & 0xff87) === 0x4700) return { length: 2, flow: conditional ? 'branch' : 'jump', dest: { register: (h >>> 3) & 15 }, text: `bx r${(h >>> 3) & 15}` };
  if ((h & 0xf800) === 0xe000) return { length: 2, flow: 'jump', dest: { offset: i + 4 + (((h & 0x7ff) << 21) >> 20) }, text: 'b' };
  if ((h & 0xff00) === 0xdf00) return { length: 2, flow: 'call' }; // svc
  if ((h & 0xf000) === 0xd000 || (h & 0xf500) === 0xb100) return { length: 2, flow: 'branch' };
  if ((h & 0xff00) === 0xbf00) return { length: 2, flow: undefined, it: h & 0xf ? 4 - ctz4(h & 0xf) : 0 };
  if ((h & 0xfe00) === 0xbc00) {
    regs.forgetList(h & 0xff);
    return { length: 2, flow: h & 0x100 ? 'jump' : undefined };
  }
  if ((h & 0xf800) === 0xc800) regs.forgetList((h & 0xff) | (1 << mid));
  else if ((h & 0xf800) === 0xc000) regs.forget(mid);
  else if ((h >>> 12 === 5 && ((h >>> 9) & 7) <= 2) || [0x0c, 0x0e, 0x10, 0x12].includes(h >>> 11)) return { length: 2, flow: undefined }; // stores
  else if ((h & 0xf800) === 0x2800 || (h & 0xff00) === 0x4500 || (h & 0xff00) === 0xb000 || (h & 0xfe00) === 0xb400) return { length: 2, flow: undefined }; // cmp, add sp, push
  else if ((h & 0xfc00) === 0x4000 && [8, 10, 11].includes((h >>> 6) & 15)) return { length: 2, flow: undefined }; // tst, cmp, cmn
  else regs.forget((h >= 0x2000 && h < 0x4000) || (h >= 0x9800 && h < 0xb000) ? mid : lo | (h >= 0x4400 && h < 0x4800 ? (h >>> 4) & 8 : 0)); // the destination: bits 10-8 (immediate forms, sp/pc-relative), else 2-0
  return { length: 2, flow: undefined };
}

/** Number of trailing zeros of a non-zero 4-bit IT mask (an IT block holds 4 - ctz instructions). */
const ctz4 = (m: number): number => (m & 1 ? 0 : m & 2 ? 1 : m & 4 ? 2 : 3);

/** Whether a decoded transfer may be the call that takes the string (a `bx lr`, `pop {pc}` is a return). */
const callSite = (d: Decoded): boolean => (d.flow === 'call' || d.flow === 'jump') && d.dest !== undefined && !('register' in d.dest && d.dest.register === 14);

/**
 * Calls whose argument register `argument` (0 for r0) is loaded with a value whose low 12 bits are `low12`, with
 * the values of the `count` argument registers after it at the call. A32 code is read at multiples of four,
 * Thumb code at even offsets, from the start of `b`.
 */
export function armCalls(b: Buffer, thumb: boolean, argument: number, count: number, low12: number): RawCall[] {
  const step = (i: number, regs: Registers, conditional = false) => (thumb ? stepThumb(b, i, regs, conditional) : stepArm(b, i, regs));
  /** Call offset → offset of the address load before it (an instruction boundary). */
  const sites = new Map<number, number>();
  const scratch = new Registers();
  for (let i = 0; i + 4 <= b.length; i += thumb ? 2 : 4) {
    // Byte tests first (most positions fail them): Thumb `ldr rN, [pc, #imm]` or `movw rN`; A32 `ldr rN, [pc,
    // #±imm]` or `movw rN`, unconditional.
    const top = b[i + (thumb ? 1 : 3)]!;
    const loads = thumb
      ? top === 0x48 + argument || ((top & 0xfb) === 0xf2 && (b[i]! & 0xf0) === 0x40 && (b[i + 3]! & 0x8f) === argument)
      : (top === 0xe5 && (b[i + 2]! & 0x7f) === 0x1f && b[i + 1]! >>> 4 === argument) || (top === 0xe3 && (b[i + 2]! & 0xf0) === 0 && b[i + 1]! >>> 4 === argument);
    if (!loads) continue;
    const d = step(i, scratch);
    const value = scratch.value[argument];
    if (value === undefined || (value & 0xfff) !== low12) continue;
    for (let j = i + d.length, n = 0; n < REACH && j + 2 <= b.length; n++) {
      const next = step(j, scratch);
      if (next.flow !== undefined) {
        if (callSite(next)) sites.set(j, i);
        break;
      }
      j += next.length;
    }
  }
  const out: RawCall[] = [];
  const unit = thumb ? 2 : 4;
  for (const [call, load] of sites) {
    // Replay from WINDOW instructions before. A Thumb stream started inside a 32-bit instruction decodes other
    // instructions until it falls into step: it is started one halfword later until it passes through the address
    // load, a known boundary (from there on it decodes as the search did).
    for (let start = Math.max(0, call - WINDOW * unit); start <= load; start += 2) {
      const regs = new Registers();
      let k = start;
      let it = 0;
      let synced = false;
      while (k < call) {
        synced ||= k === load;
        const d: Decoded & { it?: number } = step(k, regs, it > 0);
        it = d.flow === undefined && d.it ? d.it : Math.max(0, it - 1);
        if (d.flow === 'call' || d.flow === 'jump') regs.reset();
        k += d.length;
      }
      if (!synced || k !== call) {
        if (thumb) continue;
        break;
      }
      const d = step(call, new Registers());
      const address = regs.value[argument];
      if (address === undefined) break;
      const args: Array<number | undefined> = [];
      const setBy: string[] = [];
      for (let n = 1; n <= count && argument + n <= 3; n++) {
        const value = regs.value[argument + n];
        args.push(value === undefined ? undefined : value | 0);
        setBy.push(value === undefined ? `r${argument + n} not a constant` : regs.how[argument + n]!);
      }
      const dest = d.dest!;
      const target = 'offset' in dest ? (base: number) => base + dest.offset : regs.value[dest.register] !== undefined ? () => regs.value[dest.register]! & ~1 : undefined;
      out.push({ isa: thumb ? 'thumb' : 'arm', call, load: regs.at[argument]!, address, args, setBy, callText: d.text ?? 'call', target });
      break;
    }
  }
  return out.sort((x, y) => x.call - y.call);
}
