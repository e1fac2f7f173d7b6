// The constant arguments of a call that passes a given string: for firmware that prints its version from integers
// (eCos: `printf("eCos Release: %d.%d.%d\n", CYGNUM_HAL_VERSION_MAJOR, …)`), the version exists only as immediates
// loaded into the argument registers next to the call that passes the format string's address. Given the bytes of
// a raw image or an ELF file and the offset of the string, this finds such calls in MIPS32 (both byte orders,
// format-call-mips.ts) and 32-bit ARM and Thumb code (format-call-arm.ts) and reads the following argument
// registers.
//
// An absolute address needs the image's load address. An ELF file gives it (its PT_LOAD segments); a raw image
// does not, so each candidate implies one: the address the code loads minus the string's offset. A candidate is
// kept only when that load address is plausible (page-aligned, in the low 1 GiB or in MIPS kseg0/kseg1,
// 0x80000000-0xBFFFFFFF) and the call's own destination, read with the same load address, lies inside the image.
// The decoders replay at most 16 straight-line instructions before the call; a register written by anything but
// the constant forms (`li`, `lui`/`addiu`/`ori`, `move`; `mov`/`mvn`/`movw`/`movt`, `ldr rN, [pc, #imm]`) reads as
// no constant. Code that starts inside a container at an offset not a multiple of four is not decoded.
import { armCalls } from './format-call-arm.js';
import { mipsCalls } from './format-call-mips.js';

export type CallIsa = 'mips-le' | 'mips-be' | 'arm' | 'thumb';

/** A call found by a decoder, before the addresses are checked against the image's layout. */
export interface RawCall {
  isa: CallIsa;
  /** Offset of the call instruction. */
  call: number;
  /** Offset of the instruction that completed the string argument's value. */
  load: number;
  /** The value of the string's argument register at the call (an address, if this is the call sought). */
  address: number;
  /** The next argument registers at the call, as signed 32-bit constants; undefined where not a constant. */
  args: Array<number | undefined>;
  /** Per argument: the instruction that set it ('li a1, 3', 'mov r2, r3'), or why it is no constant. */
  setBy: string[];
  /** The call instruction ('jal', 'bl', 'jalr t9'). */
  callText: string;
  /** The call's destination address given the load address of offset 0, when it can be known. */
  target?: (base: number) => number;
}

export interface FormatCall extends Omit<RawCall, 'target'> {
  /** The load address of the data's offset 0 that the reference implies (for an ELF file, its code segment's). */
  base: number;
}

export interface FormatCallOptions {
  /** Which argument register holds the string (0: the first; 1 for `sprintf(buf, fmt, …)`). Default 0. */
  argument?: number;
  /** How many argument registers after it to read (at most up to the fourth register). Default 3. */
  count?: number;
}

const PAGE = 4096;
const PLAUSIBLE_BASES: Array<[number, number]> = [
  [0, 0x40000000],
  [0x80000000, 0xc0000000],
];

interface Segment {
  offset: number;
  address: number;
  size: number;
}

/**
 * PT_LOAD segments of an ELF file with the instruction sets decoded in it (none for a 64-bit file or another
 * machine), or undefined for a file that is not ELF.
 */
function elfLayout(b: Buffer): { segments: Segment[]; isas: CallIsa[] } | undefined {
  if (b.length < 52 || b.readUInt32BE(0) !== 0x7f454c46) return undefined;
  if (b[4] !== 1) return { segments: [], isas: [] };
  const le = b[5] === 1;
  const u16 = (at: number): number => (le ? b.readUInt16LE(at) : b.readUInt16BE(at));
  const u32 = (at: number): number => (le ? b.readUInt32LE(at) : b.readUInt32BE(at));
  const machine = u16(18);
  const isas: CallIsa[] = machine === 8 ? [le ? 'mips-le' : 'mips-be'] : machine === 40 && le ? ['arm', 'thumb'] : [];
  const segments: Segment[] = [];
  const phoff = u32(28);
  const size = u16(42);
  for (let n = 0, count = u16(44); n < count && n < 64; n++) {
    const at = phoff + n * size;
    if (size < 32 || at + 32 > b.length) break;
    if (u32(at) === 1) segments.push({ offset: u32(at + 4), address: u32(at + 8), size: u32(at + 16) });
  }
  return { segments, isas };
}

const within = (segments: Segment[], key: 'offset' | 'address', value: number): Segment | undefined => segments.find((s) => value >= s[key] && value < s[key] + s.size);

/**
 * Every call whose `argument`-th argument register holds the address of the string at `stringOffset` (an offset
 * in `data`), with the constants in the `count` argument registers after it. Callers decide what agreement they
 * need (several calls with different constants, or none, usually mean no answer).
 */
export function formatCallArgs(data: Buffer, stringOffset: number, options: FormatCallOptions = {}): FormatCall[] {
  const argument = options.argument ?? 0;
  const count = options.count ?? 3;
  if (argument < 0 || argument > 3 || stringOffset < 0 || stringOffset >= data.length) return [];
  const elf = elfLayout(data);
  let stringAddress: number | undefined;
  if (elf) {
    const segment = within(elf.segments, 'offset', stringOffset);
    if (!segment) return [];
    stringAddress = segment.address + stringOffset - segment.offset;
  }
  const low12 = (stringAddress ?? stringOffset) % PAGE;
  const isas = elf?.isas ?? (['mips-be', 'mips-le', 'arm', 'thumb'] as const);
  const out: FormatCall[] = [];
  for (const isa of isas) {
    const raw = isa === 'mips-le' || isa === 'mips-be' ? mipsCalls(data, isa === 'mips-le', argument, count, low12) : armCalls(data, isa === 'thumb', argument, count, low12);
    for (const { target, ...call } of raw) {
      let base: number;
      if (elf) {
        const code = within(elf.segments, 'offset', call.call);
        if (call.address !== stringAddress || !code) continue;
        base = code.address - code.offset;
        const dest = target?.(base);
        if (dest !== undefined && !within(elf.segments, 'address', dest)) continue;
      } else {
        base = call.address - stringOffset;
        if (base % PAGE !== 0 || !PLAUSIBLE_BASES.some(([lo, hi]) => base >= lo && base < hi)) continue;
        const dest = target?.(base);
        if (dest !== undefined && (dest < base || dest >= base + data.length)) continue;
      }
      out.push({ ...call, base });
    }
  }
  return out;
}

/**
 * Evidence for a call, its offset counted from `offset` (the file offset of the data searched):
 * 'mips-be jal at 0x2c: li a1, 3; move a2, zero = 0; move a3, zero = 0 (string at 0x800100d8)'.
 */
export function describeFormatCall(call: FormatCall, offset = 0): string {
  const args = call.setBy.map((how, n) => {
    const value = call.args[n];
    return value === undefined || how.endsWith(`, ${value}`) || how.endsWith(`, #${value}`) ? how : `${how} = ${value}`;
  });
  return `${call.isa} ${call.callText} at 0x${(offset + call.call).toString(16)}: ${args.join('; ')} (string at 0x${call.address.toString(16)})`;
}
