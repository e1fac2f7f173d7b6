// UEFI PI section streams (PI spec vol. 3, "Firmware File Sections"): a 4-byte header (24-bit size + type, or
// size 0xFFFFFF and a 32-bit extended size) and the body, each section 4-byte aligned. Encapsulation sections
// (compression, GUID-defined) are decoded here and their inner streams parsed in turn, so one FFS file becomes
// a tree whose leaves (PE32, TE, raw, volumes, ...) the FV handler writes.
import zlib from 'node:zlib';
import { lzmaAlone } from '../../codecs/blocks.js';
import { tianoDecompressEither, type TianoVariant } from '../../codecs/tiano.js';
import { FormatError } from '../../../format-error.js';
import { bcjX86Decode } from '../../codecs/bcj-x86.js';
import { GUIDS, guidString } from './guid.js';

export const SECTION_TYPES: Record<number, string> = {
  0x01: 'COMPRESSION',
  0x02: 'GUID_DEFINED',
  0x03: 'DISPOSABLE',
  0x10: 'PE32',
  0x11: 'PIC',
  0x12: 'TE',
  0x13: 'DXE_DEPEX',
  0x14: 'VERSION',
  0x15: 'USER_INTERFACE',
  0x16: 'COMPATIBILITY16',
  0x17: 'FIRMWARE_VOLUME_IMAGE',
  0x18: 'FREEFORM_SUBTYPE_GUID',
  0x19: 'RAW',
  0x1b: 'PEI_DEPEX',
  0x1c: 'MM_DEPEX',
};

/** A leaf section: its type and body, plus the GUID of a freeform section. */
export interface Section {
  type: number;
  typeName: string;
  body: Buffer;
  /** Offset of the section inside the stream it came from (the outermost stream for undecoded bodies). */
  offset: number;
  subtypeGuid?: string;
}

export interface ParsedSections {
  leaves: Section[];
  uiName?: string;
  version?: string;
  /** What could not be decoded, with the reason; the undecoded body is kept as a RAW-like leaf. */
  problems: string[];
}

export interface SectionLimits {
  /** Cap on the bytes any one decompression may produce. */
  maxOutput: number;
  /** Cap on nested encapsulations (a loop of GUID sections cannot recurse forever). */
  maxDepth: number;
}

export const DEFAULT_SECTION_LIMITS: SectionLimits = { maxOutput: 128 * 1024 * 1024, maxDepth: 8 };
const PROCESSING_REQUIRED = 0x01;

function ucs2(body: Buffer): string {
  let end = 0;
  while (end + 1 < body.length && (body[end] !== 0 || body[end + 1] !== 0)) end += 2;
  return body.subarray(0, end).toString('utf16le');
}

/** LZMA-alone data (13-byte header) as EDK II's LzmaCustomDecompress expects it, capped by the declared size. */
async function decodeLzma(data: Buffer, cap: number, x86: boolean): Promise<Buffer> {
  if (data.length < 13) throw new FormatError('LZMA section: shorter than its 13-byte header');
  const declared = Number(data.readBigUInt64LE(5));
  if (declared > cap && declared !== Number(0xffffffffffffffffn)) {
    throw new FormatError(`LZMA section: declared size ${declared} exceeds the limit of ${cap} bytes`);
  }
  let out: Buffer;
  try {
    out = await lzmaAlone(data, cap);
  } catch (error) {
    // Some encoders write both the size and an end marker, which liblzma refuses: retry as size-unknown.
    if (declared > cap || data.readBigInt64LE(5) === -1n) throw error;
    const unsized = Buffer.from(data);
    unsized.writeBigInt64LE(-1n, 5);
    out = await lzmaAlone(unsized, cap);
    if (out.length !== declared) throw error;
  }
  return x86 ? bcjX86Decode(out) : out;
}

/** EDK II Brotli sections: 8-byte decoded size, 8-byte scratch size, then the Brotli stream. */
function decodeBrotli(data: Buffer, cap: number): Buffer {
  if (data.length < 16) throw new FormatError('Brotli section: shorter than its 16-byte header');
  const declared = Number(data.readBigUInt64LE(0));
  if (declared > cap) throw new FormatError(`Brotli section: declared size ${declared} exceeds the limit of ${cap} bytes`);
  try {
    return zlib.brotliDecompressSync(data.subarray(16), { maxOutputLength: Math.max(declared, 1) });
  } catch (error) {
    throw new FormatError(`Brotli section: ${(error as Error).message}`);
  }
}

async function decodeGuided(guid: string, data: Buffer, limits: SectionLimits): Promise<Buffer | undefined> {
  switch (guid) {
    case GUIDS.lzma:
      return decodeLzma(data, limits.maxOutput, false);
    case GUIDS.lzmaF86:
      return decodeLzma(data, limits.maxOutput, true);
    case GUIDS.brotli:
      return decodeBrotli(data, limits.maxOutput);
    default:
      return undefined;
  }
}

/** Parses a section stream; encapsulations are decoded and flattened into `out`. */
export async function parseSections(
  stream: Buffer,
  limits: SectionLimits = DEFAULT_SECTION_LIMITS,
  out: ParsedSections = { leaves: [], problems: [] },
  depth = 0,
): Promise<ParsedSections> {
  if (depth > limits.maxDepth) {
    out.problems.push(`sections nested deeper than ${limits.maxDepth} levels`);
    return out;
  }
  let at = 0;
  while (at + 4 <= stream.length) {
    let size = stream.readUIntLE(at, 3);
    const type = stream[at + 3]!;
    let headerSize = 4;
    if (size === 0xffffff) {
      if (at + 8 > stream.length) throw new FormatError(`section at ${at}: truncated extended header`);
      size = stream.readUInt32LE(at + 4);
      headerSize = 8;
    }
    // Trailing erase bytes or zero padding after the last section.
    if (size === 0 && type === 0) break;
    if (size < headerSize || at + size > stream.length) {
      throw new FormatError(`section at ${at}: size ${size} does not fit the ${stream.length}-byte stream`);
    }
    const body = stream.subarray(at + headerSize, at + size);
    await parseOne(type, body, at, limits, out, depth);
    at += Math.ceil(size / 4) * 4;
  }
  return out;
}

async function parseOne(type: number, body: Buffer, offset: number, limits: SectionLimits, out: ParsedSections, depth: number): Promise<void> {
  const typeName = SECTION_TYPES[type] ?? `0x${type.toString(16).padStart(2, '0')}`;
  const keepRaw = (why: string) => {
    out.problems.push(why);
    out.leaves.push({ type, typeName, body, offset });
  };
  switch (type) {
    case 0x01: {
      if (body.length < 5) throw new FormatError(`compression section at ${offset}: truncated header`);
      const length = body.readUInt32LE(0);
      const kind = body[4]!;
      const data = body.subarray(5);
      if (kind === 0) {
        await parseSections(data.subarray(0, length), limits, out, depth + 1);
      } else if (kind === 1) {
        const parsed = await decodeStandardCompression(data, limits, depth).catch((error: unknown) => error as Error);
        if (parsed instanceof Error) keepRaw(`compression section at ${offset}: ${parsed.message}`);
        else merge(out, parsed);
      } else {
        keepRaw(`compression section at ${offset}: unknown compression type ${kind}`);
      }
      return;
    }
    case 0x02: {
      if (body.length < 20) throw new FormatError(`GUID-defined section at ${offset}: truncated header`);
      const guid = guidString(body);
      const dataOffset = body.readUInt16LE(16) - 4; // relative to the section start, which has a 4-byte header
      const attributes = body.readUInt16LE(18);
      if (dataOffset < 20 || dataOffset > body.length) throw new FormatError(`GUID-defined section at ${offset}: data offset out of range`);
      const data = body.subarray(dataOffset);
      if (guid === GUIDS.tiano) {
        // Tiano GUID sections occasionally hold EFI-variant streams: the same validation as type 1.
        const parsed = await decodeStandardCompression(data, limits, depth, ['tiano', 'efi']).catch((error: unknown) => error as Error);
        if (parsed instanceof Error) keepRaw(`GUID-defined section ${guid} at ${offset}: ${parsed.message}`);
        else merge(out, parsed);
        return;
      }
      let decoded: Buffer | undefined;
      try {
        decoded = await decodeGuided(guid, data, limits);
      } catch (error) {
        keepRaw(`GUID-defined section ${guid} at ${offset}: ${(error as Error).message}`);
        return;
      }
      if (decoded) await parseSections(decoded, limits, out, depth + 1);
      else if (!(attributes & PROCESSING_REQUIRED)) await parseSections(data, limits, out, depth + 1);
      else keepRaw(`GUID-defined section ${guid} at ${offset}: unknown encoding, kept undecoded`);
      return;
    }
    case 0x03:
      await parseSections(body, limits, out, depth + 1);
      return;
    case 0x14:
      if (body.length >= 2) out.version ??= ucs2(body.subarray(2));
      return;
    case 0x15:
      out.uiName ??= ucs2(body);
      return;
    case 0x18: {
      if (body.length < 16) throw new FormatError(`freeform section at ${offset}: truncated GUID`);
      out.leaves.push({ type, typeName, body: body.subarray(16), offset, subtypeGuid: guidString(body) });
      return;
    }
    default:
      out.leaves.push({ type, typeName, body, offset });
  }
}

/**
 * The COMPRESSION section's type 1 is EFI compression, but some vendors put Tiano streams there (the two differ
 * in one parameter). A stream decoded with the wrong variant usually fails or yields garbage that does not
 * parse as sections, so each variant counts only when its output parses.
 */
function decodeStandardCompression(
  data: Buffer,
  limits: SectionLimits,
  depth: number,
  order?: readonly TianoVariant[],
): Promise<ParsedSections> {
  return tianoDecompressEither(data, limits.maxOutput, (decoded) => parseSections(decoded, limits, { leaves: [], problems: [] }, depth + 1), order);
}

function merge(into: ParsedSections, from: ParsedSections): void {
  into.leaves.push(...from.leaves);
  into.problems.push(...from.problems);
  into.uiName ??= from.uiName;
  into.version ??= from.version;
}
