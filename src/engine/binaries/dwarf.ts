// A minimal DWARF reader (versions 2 to 5) for function names: every DW_TAG_subprogram of .debug_info with a
// DW_AT_name (or linkage name) and a DW_AT_low_pc. Abbreviations come from .debug_abbrev, strings from
// .debug_str / .debug_line_str (DW_FORM_strp, line_strp) or through .debug_str_offsets (DW_FORM_strx*), addresses
// inline (DW_FORM_addr) or through .debug_addr (DW_FORM_addrx*, clang's default). Every other attribute is
// skipped by its form. Each read is bounds-checked: a damaged unit throws FormatError.
//
//   dwarfFunctions({ info, abbrev, str, lineStr, strOffsets, addr, le: true })  // [{ address, name }]
import { FormatError } from '../format-error.js';

export interface DwarfSections {
  info: Buffer;
  abbrev: Buffer;
  str?: Buffer;
  lineStr?: Buffer;
  strOffsets?: Buffer;
  addr?: Buffer;
  le: boolean;
}

export interface DwarfFunction {
  address: number;
  name: string;
}

const DW_TAG_compile_unit = 0x11;
const DW_TAG_subprogram = 0x2e;
const DW_AT_name = 0x03;
const DW_AT_low_pc = 0x11;
const DW_AT_linkage_name = 0x6e;
const DW_AT_MIPS_linkage_name = 0x2007;
const DW_AT_str_offsets_base = 0x72;
const DW_AT_addr_base = 0x73;
const DW_FORM_implicit_const = 0x21;
const DW_FORM_indirect = 0x16;
const MAX_FUNCTIONS = 500_000;

interface Abbrev {
  tag: number;
  children: boolean;
  attrs: Array<{ name: number; form: number; implicit?: number }>;
}

/** A bounds-checked little/big-endian cursor over one section. */
class Cursor {
  constructor(
    readonly buf: Buffer,
    public at: number,
    readonly le: boolean,
    readonly what: string,
  ) {}

  need(n: number): number {
    if (n < 0 || this.at + n > this.buf.length) throw new FormatError(`${this.what}: read of ${n} bytes at ${this.at} is past its end (${this.buf.length})`);
    const at = this.at;
    this.at += n;
    return at;
  }
  u8(): number {
    return this.buf[this.need(1)]!;
  }
  u16(): number {
    const at = this.need(2);
    return this.le ? this.buf.readUInt16LE(at) : this.buf.readUInt16BE(at);
  }
  u24(): number {
    const at = this.need(3);
    return this.le ? this.buf.readUIntLE(at, 3) : this.buf.readUIntBE(at, 3);
  }
  u32(): number {
    const at = this.need(4);
    return this.le ? this.buf.readUInt32LE(at) : this.buf.readUInt32BE(at);
  }
  u64(): number {
    const at = this.need(8);
    return Number(this.le ? this.buf.readBigUInt64LE(at) : this.buf.readBigUInt64BE(at));
  }
  sized(n: number): number {
    if (n === 1) return this.u8();
    if (n === 2) return this.u16();
    if (n === 4) return this.u32();
    if (n === 8) return this.u64();
    throw new FormatError(`${this.what}: unsupported ${n}-byte value`);
  }
  uleb(): number {
    return this.leb(false);
  }
  sleb(): number {
    return this.leb(true);
  }
  /** LEB128, at most 10 bytes (values past 2^53 lose precision; DWARF offsets and indexes never get there). */
  private leb(signed: boolean): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.u8();
      result += (b & 0x7f) * scale;
      scale *= 128;
      if (!(b & 0x80)) return signed && b & 0x40 ? result - scale : result;
    }
    throw new FormatError(`${this.what}: LEB128 value too long at ${this.at}`);
  }
  cstring(): string {
    const end = this.buf.indexOf(0, this.at);
    if (end < 0) throw new FormatError(`${this.what}: unterminated string at ${this.at}`);
    const text = this.buf.toString('utf8', this.at, end);
    this.at = end + 1;
    return text;
  }
}

function readAbbrevs(sections: DwarfSections, offset: number, cache: Map<number, Map<number, Abbrev>>): Map<number, Abbrev> {
  const cached = cache.get(offset);
  if (cached) return cached;
  const c = new Cursor(sections.abbrev, offset, sections.le, '.debug_abbrev');
  const table = new Map<number, Abbrev>();
  for (;;) {
    const code = c.uleb();
    if (code === 0) break;
    const tag = c.uleb();
    const children = c.u8() !== 0;
    const attrs: Abbrev['attrs'] = [];
    for (;;) {
      const name = c.uleb();
      const form = c.uleb();
      if (name === 0 && form === 0) break;
      attrs.push(form === DW_FORM_implicit_const ? { name, form, implicit: c.sleb() } : { name, form });
    }
    table.set(code, { tag, children, attrs });
  }
  cache.set(offset, table);
  return table;
}

interface Unit {
  version: number;
  addressSize: number;
  offsetSize: 4 | 8;
  strOffsetsBase?: number;
  addrBase?: number;
}

/** A value as read: a number, a string, or an index to resolve once the unit's bases are known. */
type Value = number | string | { strx: number } | { addrx: number } | undefined;

/** Reads (or skips) one attribute value of `form`. */
function readForm(c: Cursor, form: number, unit: Unit, sections: DwarfSections, implicit?: number): Value {
  const off = () => c.sized(unit.offsetSize);
  const skip = (n: number) => void c.need(n);
  switch (form) {
    case 0x01: return c.sized(unit.addressSize); // addr
    case 0x03: return skip(c.u16());              // block2
    case 0x04: return skip(c.u32());              // block4
    case 0x05: return c.u16();                    // data2
    case 0x06: return c.u32();                    // data4
    case 0x07: return c.u64();                    // data8
    case 0x08: return c.cstring();                // string
    case 0x09: case 0x18: return skip(c.uleb());  // block, exprloc
    case 0x0a: return skip(c.u8());               // block1
    case 0x0b: case 0x0c: case 0x11: return c.u8(); // data1, flag, ref1
    case 0x0d: return c.sleb();                   // sdata
    case 0x0e: return stringAt(sections.str, off(), '.debug_str'); // strp
    case 0x1f: return stringAt(sections.lineStr, off(), '.debug_line_str'); // line_strp
    case 0x1d: return off();                      // strp_sup (another file): not resolved
    case 0x0f: case 0x15: case 0x22: case 0x23: return c.uleb(); // udata, ref_udata, loclistx, rnglistx
    case 0x10: return unit.version <= 2 ? c.sized(unit.addressSize) : off(); // ref_addr
    case 0x12: return c.u16();                    // ref2
    case 0x13: case 0x1c: return c.u32();         // ref4, ref_sup4
    case 0x14: case 0x20: case 0x24: return c.u64(); // ref8, ref_sig8, ref_sup8
    case 0x17: return off();                      // sec_offset
    case 0x19: return 1;                          // flag_present
    case 0x1e: return skip(16);                   // data16
    case DW_FORM_implicit_const: return implicit;
    case 0x1a: return { strx: c.uleb() };
    case 0x25: return { strx: c.u8() };
    case 0x26: return { strx: c.u16() };
    case 0x27: return { strx: c.u24() };
    case 0x28: return { strx: c.u32() };
    case 0x1b: return { addrx: c.uleb() };
    case 0x29: return { addrx: c.u8() };
    case 0x2a: return { addrx: c.u16() };
    case 0x2b: return { addrx: c.u24() };
    case 0x2c: return { addrx: c.u32() };
    case DW_FORM_indirect: {
      const actual = c.uleb();
      // An indirect form naming itself again would recurse once per byte of a hostile section.
      if (actual === DW_FORM_indirect || actual === DW_FORM_implicit_const) throw new FormatError(`.debug_info: DW_FORM_indirect to form 0x${actual.toString(16)}`);
      return readForm(c, actual, unit, sections);
    }
    default:
      throw new FormatError(`.debug_info: unknown attribute form 0x${form.toString(16)}`);
  }
}

function stringAt(table: Buffer | undefined, offset: number, what: string): string {
  if (!table) throw new FormatError(`${what} is missing`);
  return new Cursor(table, offset, true, what).cstring();
}

function resolveString(value: Value, unit: Unit, sections: DwarfSections): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object') return undefined;
  if (!('strx' in value) || !sections.strOffsets) return undefined;
  // Without DW_AT_str_offsets_base (DWARF 5 split units), the table starts after its 8- or 16-byte header.
  const base = unit.strOffsetsBase ?? (unit.offsetSize === 8 ? 16 : 8);
  const c = new Cursor(sections.strOffsets, base + value.strx * unit.offsetSize, sections.le, '.debug_str_offsets');
  return stringAt(sections.str, c.sized(unit.offsetSize), '.debug_str');
}

function resolveAddress(value: Value, unit: Unit, sections: DwarfSections): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'object' || !('addrx' in value) || !sections.addr) return undefined;
  const c = new Cursor(sections.addr, (unit.addrBase ?? 8) + value.addrx * unit.addressSize, sections.le, '.debug_addr');
  return c.sized(unit.addressSize);
}

/** Functions with code (a low_pc) and a name, in .debug_info order. */
export function dwarfFunctions(sections: DwarfSections): DwarfFunction[] {
  const out: DwarfFunction[] = [];
  const abbrevCache = new Map<number, Map<number, Abbrev>>();
  const c = new Cursor(sections.info, 0, sections.le, '.debug_info');
  while (c.at < sections.info.length && out.length < MAX_FUNCTIONS) {
    const start = c.at;
    let length = c.u32();
    let offsetSize: 4 | 8 = 4;
    if (length === 0xffffffff) {
      length = c.u64();
      offsetSize = 8;
    } else if (length >= 0xfffffff0) throw new FormatError(`.debug_info: reserved unit length 0x${length.toString(16)} at ${start}`);
    const end = c.at + length;
    if (end > sections.info.length) throw new FormatError(`.debug_info: unit at ${start} runs past the section end`);
    const version = c.u16();
    if (version < 2 || version > 5) throw new FormatError(`.debug_info: unit at ${start} has unsupported DWARF version ${version}`);
    let addressSize: number;
    let abbrevOffset: number;
    if (version === 5) {
      const unitType = c.u8();
      addressSize = c.u8();
      abbrevOffset = c.sized(offsetSize);
      if (unitType === 4 || unitType === 5) c.need(8); // skeleton/split compile: dwo_id
      else if (unitType === 2 || unitType === 6) c.need(8 + offsetSize); // type units: signature, type offset
    } else {
      abbrevOffset = c.sized(offsetSize);
      addressSize = c.u8();
    }
    if (addressSize !== 2 && addressSize !== 4 && addressSize !== 8) throw new FormatError(`.debug_info: unit at ${start} has address size ${addressSize}`);
    const unit: Unit = { version, addressSize, offsetSize };
    const abbrevs = readAbbrevs(sections, abbrevOffset, abbrevCache);
    const dies = new Cursor(sections.info.subarray(0, end), c.at, sections.le, '.debug_info');
    readUnitDies(dies, abbrevs, unit, sections, out);
    c.at = end;
  }
  return out;
}

function readUnitDies(c: Cursor, abbrevs: Map<number, Abbrev>, unit: Unit, sections: DwarfSections, out: DwarfFunction[]): void {
  while (c.at < c.buf.length) {
    const code = c.uleb();
    if (code === 0) continue; // end of a sibling list
    const abbrev = abbrevs.get(code);
    if (!abbrev) throw new FormatError(`.debug_info: abbreviation ${code} is not defined`);
    const wanted = abbrev.tag === DW_TAG_subprogram || abbrev.tag === DW_TAG_compile_unit;
    let name: Value;
    let linkageName: Value;
    let lowPc: Value;
    for (const attr of abbrev.attrs) {
      const value = readForm(c, attr.form, unit, sections, attr.implicit);
      if (!wanted) continue;
      if (attr.name === DW_AT_name) name = value;
      else if (attr.name === DW_AT_linkage_name || attr.name === DW_AT_MIPS_linkage_name) linkageName = value;
      else if (attr.name === DW_AT_low_pc) lowPc = value;
      else if (attr.name === DW_AT_str_offsets_base && typeof value === 'number') unit.strOffsetsBase = value;
      else if (attr.name === DW_AT_addr_base && typeof value === 'number') unit.addrBase = value;
    }
    if (abbrev.tag !== DW_TAG_subprogram || lowPc === undefined) continue;
    const address = resolveAddress(lowPc, unit, sections);
    const label = resolveString(name, unit, sections) ?? resolveString(linkageName, unit, sections);
    if (address && label) out.push({ address, name: label });
  }
}
