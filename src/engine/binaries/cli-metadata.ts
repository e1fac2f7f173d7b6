// CLI (.NET) metadata of a managed PE (ECMA-335 partition II): the CLI header (data directory 14) points at the
// metadata root ('BSJB'), whose '#~' stream holds the tables. The Assembly table (0x20) names the assembly and
// its version; reaching it means sizing every row of tables 0x00-0x1F, whose index columns are 2 or 4 bytes wide
// depending on the row counts and heap sizes. Bounded reads; a malformed image throws FormatError.
import { FormatError } from '../format-error.js';
import { readExact as readExactFrom, type ByteSource } from './byte-source.js';
import { cStringAt, rvaToOffset, type PeInfo } from './pe.js';

export interface CliAssembly {
  name: string;
  /** Major.Minor.Build.Revision of the Assembly row. */
  version: string;
  culture?: string;
  /** The metadata root's runtime version string ('v4.0.30319'). */
  runtime: string;
  /** AnyCPU: IL only, not 32-bit-required, in a PE32 image marked i386; it runs on any architecture. */
  anyCpu: boolean;
}

const MAX_METADATA = 64 * 1024 * 1024;
const ASSEMBLY = 0x20;

// Coded index kinds: the tables each can point to (ECMA-335 II.24.2.6).
const TYPE_DEF_OR_REF = [0x02, 0x01, 0x1b];
const HAS_CONSTANT = [0x04, 0x08, 0x17];
const HAS_CUSTOM_ATTRIBUTE = [0x06, 0x04, 0x01, 0x02, 0x08, 0x09, 0x0a, 0x00, 0x0e, 0x17, 0x14, 0x11, 0x1a, 0x1b, 0x20, 0x23, 0x26, 0x27, 0x28, 0x2a, 0x2c, 0x2b];
const HAS_FIELD_MARSHAL = [0x04, 0x08];
const HAS_DECL_SECURITY = [0x02, 0x06, 0x20];
const MEMBER_REF_PARENT = [0x02, 0x01, 0x1a, 0x06, 0x1b];
const HAS_SEMANTICS = [0x14, 0x17];
const METHOD_DEF_OR_REF = [0x06, 0x0a];
const MEMBER_FORWARDED = [0x04, 0x06];
const RESOLUTION_SCOPE = [0x00, 0x1a, 0x23, 0x01];
/** CustomAttributeType has 5 tags, of which only MethodDef and MemberRef are used. */
const CUSTOM_ATTRIBUTE_TYPE = [-1, -1, 0x06, 0x0a, -1];

/** A column: fixed bytes, a heap index, a simple index into a table, or a coded index. */
type Column = number | 'string' | 'guid' | 'blob' | { table: number } | { coded: number[] };

const t = (table: number): Column => ({ table });
const c = (coded: number[]): Column => ({ coded });

/** Columns of tables 0x00-0x1F, in order (II.22). */
const SCHEMA: Column[][] = [
  /* 0x00 Module */ [2, 'string', 'guid', 'guid', 'guid'],
  /* 0x01 TypeRef */ [c(RESOLUTION_SCOPE), 'string', 'string'],
  /* 0x02 TypeDef */ [4, 'string', 'string', c(TYPE_DEF_OR_REF), t(0x04), t(0x06)],
  /* 0x03 FieldPtr */ [t(0x04)],
  /* 0x04 Field */ [2, 'string', 'blob'],
  /* 0x05 MethodPtr */ [t(0x06)],
  /* 0x06 MethodDef */ [4, 2, 2, 'string', 'blob', t(0x08)],
  /* 0x07 ParamPtr */ [t(0x08)],
  /* 0x08 Param */ [2, 2, 'string'],
  /* 0x09 InterfaceImpl */ [t(0x02), c(TYPE_DEF_OR_REF)],
  /* 0x0A MemberRef */ [c(MEMBER_REF_PARENT), 'string', 'blob'],
  /* 0x0B Constant */ [2, c(HAS_CONSTANT), 'blob'],
  /* 0x0C CustomAttribute */ [c(HAS_CUSTOM_ATTRIBUTE), c(CUSTOM_ATTRIBUTE_TYPE), 'blob'],
  /* 0x0D FieldMarshal */ [c(HAS_FIELD_MARSHAL), 'blob'],
  /* 0x0E DeclSecurity */ [2, c(HAS_DECL_SECURITY), 'blob'],
  /* 0x0F ClassLayout */ [2, 4, t(0x02)],
  /* 0x10 FieldLayout */ [4, t(0x04)],
  /* 0x11 StandAloneSig */ ['blob'],
  /* 0x12 EventMap */ [t(0x02), t(0x14)],
  /* 0x13 EventPtr */ [t(0x14)],
  /* 0x14 Event */ [2, 'string', c(TYPE_DEF_OR_REF)],
  /* 0x15 PropertyMap */ [t(0x02), t(0x17)],
  /* 0x16 PropertyPtr */ [t(0x17)],
  /* 0x17 Property */ [2, 'string', 'blob'],
  /* 0x18 MethodSemantics */ [2, t(0x06), c(HAS_SEMANTICS)],
  /* 0x19 MethodImpl */ [t(0x02), c(METHOD_DEF_OR_REF), c(METHOD_DEF_OR_REF)],
  /* 0x1A ModuleRef */ ['string'],
  /* 0x1B TypeSpec */ ['blob'],
  /* 0x1C ImplMap */ [2, c(MEMBER_FORWARDED), 'string', t(0x1a)],
  /* 0x1D FieldRVA */ [4, t(0x04)],
  /* 0x1E EncLog */ [4, 4],
  /* 0x1F EncMap */ [4],
];

/** {@link readExactFrom} capped at this parser's largest table. */
function readExact(src: ByteSource, offset: number, length: number, what: string): Promise<Buffer> {
  return readExactFrom(src, offset, length, what, MAX_METADATA);
}

/** The assembly a managed PE defines, or undefined for native images and modules without an Assembly row. */
export async function readCliAssembly(src: ByteSource, pe: PeInfo): Promise<CliAssembly | undefined> {
  const cli = pe.directories[14];
  if (!cli?.rva || cli.size < 72) return undefined;
  const at = rvaToOffset(pe.sections, cli.rva);
  if (at === undefined) throw new FormatError('CLI header RVA is not mapped');
  const header = await readExact(src, at, 72, 'CLI header');
  const rootAt = rvaToOffset(pe.sections, header.readUInt32LE(8));
  const rootSize = header.readUInt32LE(12);
  if (rootAt === undefined) throw new FormatError('metadata RVA is not mapped');
  const root = await readExact(src, rootAt, Math.min(rootSize, src.size - rootAt), 'metadata');
  if (root.length < 20 || root.readUInt32LE(0) !== 0x424a5342) throw new FormatError('no metadata signature (BSJB)');
  const versionLength = root.readUInt32LE(12);
  if (versionLength > 255) throw new FormatError('metadata version string too long');
  const runtime = cStringAt(root, 16, versionLength);
  let p = 16 + versionLength;
  const streamCount = root.readUInt16LE(p + 2);
  p += 4;
  const streams = new Map<string, Buffer>();
  for (let i = 0; i < streamCount && p + 8 < root.length; i++) {
    const offset = root.readUInt32LE(p);
    const size = root.readUInt32LE(p + 4);
    const name = cStringAt(root, p + 8, 32);
    p += 8 + ((name.length + 4) & ~3);
    if (offset + size > root.length) throw new FormatError(`metadata stream ${name} is outside the metadata`);
    streams.set(name, root.subarray(offset, offset + size));
  }
  const tables = streams.get('#~') ?? streams.get('#-');
  const strings = streams.get('#Strings');
  if (!tables || !strings) throw new FormatError('metadata without a table or string stream');
  const row = assemblyRow(tables, strings);
  const flags = header.readUInt32LE(16);
  return row && { ...row, runtime, anyCpu: (flags & 3) === 1 && pe.machine === 0x14c };
}

function assemblyRow(tables: Buffer, strings: Buffer): Pick<CliAssembly, 'name' | 'version' | 'culture'> | undefined {
  if (tables.length < 24) throw new FormatError('table stream too short');
  const heapSizes = tables[6];
  const valid = tables.readBigUInt64LE(8);
  const rows = new Array<number>(64).fill(0);
  let p = 24;
  for (let i = 0; i < 64; i++) {
    if (!((valid >> BigInt(i)) & 1n)) continue;
    if (p + 4 > tables.length) throw new FormatError('table row counts truncated');
    rows[i] = tables.readUInt32LE(p);
    p += 4;
  }
  // Uncompressed (#-) streams of edit-and-continue images may carry 4 extra bytes after the row counts.
  if (heapSizes & 0x40) p += 4;
  if (!rows[ASSEMBLY]) return undefined;
  const stringSize = heapSizes & 1 ? 4 : 2;
  const width = (col: Column): number => {
    if (typeof col === 'number') return col;
    if (col === 'string') return stringSize;
    if (col === 'guid') return heapSizes & 2 ? 4 : 2;
    if (col === 'blob') return heapSizes & 4 ? 4 : 2;
    if ('table' in col) return rows[col.table] < 0x10000 ? 2 : 4;
    const tagBits = Math.ceil(Math.log2(col.coded.length));
    const most = Math.max(...col.coded.map((k) => (k < 0 ? 0 : rows[k])));
    return most < 1 << (16 - tagBits) ? 2 : 4;
  };
  for (let table = 0; table < ASSEMBLY; table++) {
    if (!rows[table]) continue;
    p += rows[table] * SCHEMA[table].reduce<number>((sum, col) => sum + width(col), 0);
  }
  // Assembly: HashAlgId(4) Major Minor Build Revision (2 each) Flags(4) PublicKey(blob) Name(string) Culture(string).
  const blobSize = heapSizes & 4 ? 4 : 2;
  const end = p + 16 + blobSize + 2 * stringSize;
  if (end > tables.length) throw new FormatError('Assembly table is outside the table stream');
  const version = [4, 6, 8, 10].map((o) => tables.readUInt16LE(p + o)).join('.');
  const index = (at: number): number => (stringSize === 4 ? tables.readUInt32LE(at) : tables.readUInt16LE(at));
  const name = cStringAt(strings, index(p + 16 + blobSize), 1024);
  const culture = cStringAt(strings, index(p + 16 + blobSize + stringSize), 64);
  if (!name) throw new FormatError('Assembly row without a name');
  return { name, version, ...(culture ? { culture } : {}) };
}
