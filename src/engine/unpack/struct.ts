// Header layouts declared as data: a field list plus endianness, read by one small reader, instead of slicing
// bytes by hand in every handler.
//
//   const UImageHeader = struct('be', { magic: 'u32', hcrc: 'u32', ..., name: 'char[32]' });
//   const h = UImageHeader.parse(buf);       // h.magic: number, h.name: string
//   UImageHeader.size                        // 64
import { FormatError } from '../format-error.js';

type Scalar = 'u8' | 'u16' | 'u32' | 'u64' | 'i8' | 'i16' | 'i32' | 'i64';
type Sized = `bytes[${number}]` | `char[${number}]`;
export type FieldType = Scalar | Sized;

type ValueOf<T extends FieldType> = T extends `bytes[${number}]` ? Buffer : T extends `char[${number}]` ? string : number;
export type Parsed<F extends Record<string, FieldType>> = { [K in keyof F]: ValueOf<F[K]> };

export interface Struct<F extends Record<string, FieldType>> {
  readonly size: number;
  readonly endian: 'le' | 'be';
  /** Parses the layout at `offset` of `buf`; throws FormatError when the buffer is too short. */
  parse(buf: Buffer, offset?: number): Parsed<F>;
  /** Byte offset of a field inside the layout. */
  offsetOf(field: keyof F): number;
}

const SCALAR_SIZE: Record<Scalar, number> = { u8: 1, u16: 2, u32: 4, u64: 8, i8: 1, i16: 2, i32: 4, i64: 8 };

function fieldSize(type: FieldType): number {
  const sized = /^(bytes|char)\[(\d+)\]$/.exec(type);
  if (sized) return Number(sized[2]);
  return SCALAR_SIZE[type as Scalar];
}

function readField(buf: Buffer, at: number, type: FieldType, le: boolean): number | string | Buffer {
  switch (type) {
    case 'u8':
      return buf.readUInt8(at);
    case 'i8':
      return buf.readInt8(at);
    case 'u16':
      return le ? buf.readUInt16LE(at) : buf.readUInt16BE(at);
    case 'i16':
      return le ? buf.readInt16LE(at) : buf.readInt16BE(at);
    case 'u32':
      return le ? buf.readUInt32LE(at) : buf.readUInt32BE(at);
    case 'i32':
      return le ? buf.readInt32LE(at) : buf.readInt32BE(at);
    // 64-bit fields become numbers: sizes and offsets above 2^53 are invalid for our purposes anyway.
    case 'u64':
      return Number(le ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at));
    case 'i64':
      return Number(le ? buf.readBigInt64LE(at) : buf.readBigInt64BE(at));
    default: {
      const n = fieldSize(type);
      const bytes = buf.subarray(at, at + n);
      if (type.startsWith('bytes')) return bytes;
      const nul = bytes.indexOf(0);
      return bytes.subarray(0, nul === -1 ? n : nul).toString('latin1');
    }
  }
}

export function struct<F extends Record<string, FieldType>>(endian: 'le' | 'be', fields: F): Struct<F> {
  const layout: Array<[string, FieldType, number]> = [];
  let size = 0;
  for (const [name, type] of Object.entries(fields)) {
    layout.push([name, type, size]);
    size += fieldSize(type);
  }
  const le = endian === 'le';
  return {
    size,
    endian,
    parse(buf: Buffer, offset = 0): Parsed<F> {
      if (offset < 0 || buf.length - offset < size) {
        throw new FormatError(`truncated header: need ${size} bytes at ${offset}, have ${Math.max(0, buf.length - offset)}`);
      }
      const out: Record<string, unknown> = {};
      for (const [name, type, at] of layout) out[name] = readField(buf, offset + at, type, le);
      return out as Parsed<F>;
    },
    offsetOf(field: keyof F): number {
      const entry = layout.find(([name]) => name === field);
      if (!entry) throw new Error(`no field ${String(field)}`);
      return entry[2];
    },
  };
}
