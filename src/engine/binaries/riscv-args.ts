// RISC-V (RV32/RV64 with the C extension) call arguments for a string: finds the code that loads a string's
// address into a0 with `auipc a0, hi; addi a0, a0, lo` and calls right after (`jal ra` or `auipc ra; jalr ra`),
// and reads the small integer arguments set around it with `li` (`c.li` or `addi rd, zero, imm`). Firmware that
// prints its version from integers (OpenSBI: `sbi_printf("OpenSBI v%d.%d", MAJOR, MINOR)`) keeps the version only
// there. Addresses are PC-relative, so file offsets work wherever code and string keep their distance (a flat
// image, or an ELF whose segments are laid out as in memory).

export interface RiscvCall {
  /** Offset of the `auipc` that loads the string's address. */
  at: number;
  /** Register number → immediate, for the argument registers a1..a7 set by `li` next to the call. */
  args: Map<number, number>;
}

const A0 = 10;
const RA = 1;

const u16 = (b: Buffer, i: number): number => (i >= 0 && i + 2 <= b.length ? b.readUInt16LE(i) : -1);
const u32 = (b: Buffer, i: number): number => (i >= 0 && i + 4 <= b.length ? b.readUInt32LE(i) : -1);

/** `li rd, imm` at `i` as [rd, imm, length], or undefined: `c.li` (2 bytes) or `addi rd, x0, imm` (4 bytes). */
function liAt(b: Buffer, i: number, length: 2 | 4): [number, number] | undefined {
  if (length === 2) {
    const h = u16(b, i);
    if (h < 0 || (h & 3) !== 1 || h >> 13 !== 2) return undefined;
    const rd = (h >> 7) & 31;
    if (rd === 0) return undefined;
    const imm = (((h >> 12) & 1) << 5) | ((h >> 2) & 31);
    return [rd, imm >= 32 ? imm - 64 : imm];
  }
  const w = u32(b, i);
  if (w < 0 || (w & 0x7f) !== 0x13 || ((w >> 12) & 7) !== 0 || ((w >> 15) & 31) !== 0) return undefined;
  const rd = (w >> 7) & 31;
  return rd === 0 ? undefined : [rd, w >> 20];
}

/** The length of a call at `i` (`jal ra, off` or `auipc ra, hi; jalr ra, lo(ra)`), or 0. */
function callAt(b: Buffer, i: number): number {
  const w = u32(b, i);
  if (w < 0) return 0;
  if ((w & 0x7f) === 0x6f && ((w >> 7) & 31) === RA) return 4;
  const next = u32(b, i + 4);
  if ((w & 0x7f) === 0x17 && ((w >> 7) & 31) === RA && next >= 0 && (next & 0x707f) === 0x67 && ((next >> 7) & 31) === RA && ((next >> 15) & 31) === RA) return 8;
  return 0;
}

/** Records `li` to a1..a7 in `args`; a second write to one register makes the call ambiguous (returns false). */
function record(args: Map<number, number>, li: [number, number]): boolean {
  const [rd, imm] = li;
  if (rd < 11 || rd > 17) return false;
  if (args.has(rd)) return false;
  args.set(rd, imm);
  return true;
}

/**
 * Every call whose first argument (a0) is the address of the string at `target` (an offset in `b`), with the
 * `li` arguments written directly before the address load and between it and the call. Every byte offset is
 * tried: instructions are 2-byte aligned in memory, but a firmware blob inside a container may start anywhere.
 */
export function riscvCallsWithString(b: Buffer, target: number): RiscvCall[] {
  const out: RiscvCall[] = [];
  for (let i = 0; i + 8 <= b.length; i++) {
    const auipc = b.readUInt32LE(i);
    if ((auipc & 0xfff) !== ((A0 << 7) | 0x17)) continue;
    const addi = b.readUInt32LE(i + 4);
    // addi a0, a0, lo
    if ((addi & 0xfffff) !== ((A0 << 15) | (A0 << 7) | 0x13)) continue;
    if (i + (auipc & ~0xfff) + (addi >> 20) !== target) continue;
    const args = new Map<number, number>();
    let ok = true;
    // After the address load: li … until the call.
    let j = i + 8;
    let called = false;
    for (let n = 0; n < 8 && ok; n++) {
      if (callAt(b, j)) {
        called = true;
        break;
      }
      const short = liAt(b, j, 2);
      const li = short ?? liAt(b, j, 4);
      if (!li) break;
      ok = record(args, li);
      j += short ? 2 : 4;
    }
    if (!called || !ok) continue;
    // Before it: contiguous li, read backwards. A c.li is tried first: the upper half of an `addi rd, zero, imm`
    // never reads as one (its low bits are rs1's, zero).
    let k = i;
    for (let n = 0; n < 8 && ok; n++) {
      const short = liAt(b, k - 2, 2);
      const long = liAt(b, k - 4, 4);
      if (short && short[0] >= 11 && short[0] <= 17) {
        ok = record(args, short);
        k -= 2;
      } else if (long && long[0] >= 11 && long[0] <= 17) {
        ok = record(args, long);
        k -= 4;
      } else break;
    }
    if (ok) out.push({ at: i, args });
  }
  return out;
}
