// VSS NVRAM variable stores with a four-byte signature: '$VSS' (Insyde H2O and other non-EDK II firmware), Apple's
// '$SVS' and '$NSS', and Phoenix SCT's VSS2 stores (GUID DDCF3617-...). A 16-byte header (signature, size, format
// 0x5A, state) or, for VSS2, the 28-byte EDK II header, then variables starting with 0x55AA. These stores mix
// variable layouts, told apart per variable as UEFITool does: authenticated (monotonic count, timestamp, key index),
// Apple (a CRC32 of the data after the GUID), Intel legacy (states 0xFC/0xF8, one total size, the name ends at its
// NUL) and the plain EDK II header. VSS2 variables are 4-byte aligned; the others are packed, or padded to up to 8
// bytes with erased bytes (as chipsec allows). The walker is shared with insyde-fdc.ts.
// Active variables become files named as uefi-varstore names them; deleted ones go to 'deleted/'.
import zlib from 'node:zlib';
import { FormatError } from '../../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import { struct } from '../../struct.js';
import { guidBytes, guidString } from '../uefi/guid.js';
import { efiAttributeNames, storeEnd, ucs2z, writeVariables, type NvramVariable } from './variables.js';

const SignatureHeader = struct('le', { signature: 'char[4]', size: 'u32', format: 'u8', state: 'u8', unknown: 'u16', reserved: 'u32' });
const GuidHeader = struct('le', { signature: 'bytes[16]', size: 'u32', format: 'u8', state: 'u8', unknown: 'u16', reserved: 'u32' });
const Plain = struct('le', { startId: 'u16', state: 'u8', reserved: 'u8', attributes: 'u32', nameSize: 'u32', dataSize: 'u32', vendor: 'bytes[16]' });
const Apple = struct('le', { startId: 'u16', state: 'u8', reserved: 'u8', attributes: 'u32', nameSize: 'u32', dataSize: 'u32', vendor: 'bytes[16]', crc32: 'u32' });
const Auth = struct('le', {
  startId: 'u16', state: 'u8', reserved: 'u8', attributes: 'u32', monotonicCount: 'u64', timestamp: 'bytes[16]', pubKeyIndex: 'u32',
  nameSize: 'u32', dataSize: 'u32', vendor: 'bytes[16]',
});
const Intel = struct('le', { startId: 'u16', state: 'u8', reserved: 'u8', attributes: 'u32', totalSize: 'u32', vendor: 'bytes[16]' });
const START_ID = 0x55aa;
const MAX_PADDING = 7;
const FORMATTED = 0x5a;
const APPLE_CRC = 0x80000000;
const AUTH_BITS = 0x10 | 0x20 | 0x40;
const INTEL_VALID = 0xfc;
const INTEL_INVALID = 0xf8;
/** Variable states that hold the current value (added, in deleted transition, Intel valid). */
const ACTIVE_STATES = new Set([0x3f, 0x3e, INTEL_VALID]);
export const VSS2_STORE_GUID = 'DDCF3617-3275-4164-98B6-FE85707FFE7D';
const SIGNATURES = ['$VSS', '$SVS', '$NSS'];

export type VssLayout = 'plain' | 'apple' | 'auth' | 'intel';
const VENDOR_AT: Record<VssLayout, number> = {
  plain: Plain.offsetOf('vendor'), apple: Apple.offsetOf('vendor'), auth: Auth.offsetOf('vendor'), intel: Intel.offsetOf('vendor'),
};

type StoreMeta = {
  signature: string;
  variables: number;
  deleted: number;
  layouts: VssLayout[];
  /** Absolute start of the first variable, and alignment of the variables. */
  bodyStart: number;
  alignment: number;
};

function efiTime(raw: Buffer): string | undefined {
  const year = raw.readUInt16LE(0);
  if (year === 0 || year === 0xffff) return undefined;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${year}-${pad(raw[2]!)}-${pad(raw[3]!)}T${pad(raw[4]!)}:${pad(raw[5]!)}:${pad(raw[6]!)}Z`;
}

function layoutOf(h: { state: number; attributes: number; nameSize: number; dataSize: number }): VssLayout {
  if (h.attributes & APPLE_CRC) return 'apple';
  // An authenticated header read as a plain one: its name and data sizes are the monotonic count (zero when new).
  if (h.attributes & AUTH_BITS || (h.nameSize === 0 && h.dataSize === 0)) return 'auth';
  if (h.state === INTEL_VALID || h.state === INTEL_INVALID) return 'intel';
  return 'plain';
}

/**
 * The variables between `start` and `end` (absolute), each `alignment`-aligned relative to `start` (0: packed).
 * Ends quietly at the first slot without a start id; a variable running past `end` is a FormatError.
 */
export async function* vssVariables(reader: Reader, start: number, end: number, alignment: number): AsyncGenerator<NvramVariable & { layout: VssLayout }> {
  let at = start;
  while (at + Plain.size <= end) {
    const raw = await reader.readExact(at, Math.min(Auth.size, end - at));
    const plain = Plain.parse(raw);
    if (plain.startId !== START_ID) return;
    const layout = layoutOf(plain);
    const where = `variable at 0x${(at - start).toString(16)}`;
    let header: number;
    let nameSize: number;
    let dataSize: number;
    const facts: Record<string, unknown> = {};
    if (layout === 'intel') {
      const h = Intel.parse(raw);
      header = Intel.size;
      if (h.totalSize < header || at + h.totalSize > end) throw new FormatError(`${where}: runs past the store`);
      const name = ucs2z(await reader.readExact(at + header, h.totalSize - header));
      nameSize = name.bytes;
      dataSize = h.totalSize - header - nameSize;
    } else {
      const layoutStruct = layout === 'auth' ? Auth : layout === 'apple' ? Apple : Plain;
      if (raw.length < layoutStruct.size) throw new FormatError(`${where}: header runs past the store`);
      const h = layoutStruct.parse(raw) as typeof plain & Partial<ReturnType<typeof Auth.parse> & ReturnType<typeof Apple.parse>>;
      header = layoutStruct.size;
      ({ nameSize, dataSize } = h);
      if (nameSize > 0x10000 || at + header + nameSize + dataSize > end) throw new FormatError(`${where}: runs past the store`);
      if (layout === 'auth') Object.assign(facts, { monotonicCount: h.monotonicCount, timestamp: efiTime(h.timestamp!), pubKeyIndex: h.pubKeyIndex });
      if (layout === 'apple') {
        const data = await reader.readExact(at + header + nameSize, dataSize);
        facts.crc32Ok = zlib.crc32(data) >>> 0 === h.crc32;
      }
    }
    const name = ucs2z(await reader.readExact(at + header, nameSize)).text;
    const dataStart = at + header + nameSize;
    yield {
      name,
      vendorGuid: guidString(raw, VENDOR_AT[layout]),
      attributes: efiAttributeNames(plain.attributes),
      state: ACTIVE_STATES.has(plain.state) ? 'active' : 'deleted',
      layout,
      ...facts,
      dataStart,
      dataSize,
    };
    const size = header + nameSize + dataSize;
    at += alignment > 1 ? Math.ceil(size / alignment) * alignment : size;
    if (alignment <= 1) at = await skipPadding(reader, at, end);
  }
}

/**
 * Packed stores are not always packed: some pad variables to 2, 4 or 8 bytes with erased bytes (chipsec looks up to
 * 7 bytes ahead). The next start id within that padding, or `at` unchanged.
 */
async function skipPadding(reader: Reader, at: number, end: number): Promise<number> {
  const ahead = await reader.read(at, Math.min(MAX_PADDING + 2, end - at));
  if (ahead.length < 2 || ahead.readUInt16LE(0) === START_ID) return at;
  for (let pad = 1; pad <= MAX_PADDING && pad + 2 <= ahead.length; pad++) {
    if (ahead[pad - 1] !== 0xff) return at;
    if (ahead.readUInt16LE(pad) === START_ID) return at + pad;
  }
  return at;
}

/** The store header at `start`: its signature, size, header size and variable alignment, or null. */
async function readHeader(reader: Reader, start: number): Promise<{ signature: string; size: number; format: number; header: number; alignment: number } | null> {
  const raw = await reader.read(start, GuidHeader.size);
  if (raw.length >= GuidHeader.size && guidString(raw) === VSS2_STORE_GUID) {
    const h = GuidHeader.parse(raw);
    return { signature: 'VSS2', size: h.size, format: h.format, header: GuidHeader.size, alignment: 4 };
  }
  if (raw.length < SignatureHeader.size) return null;
  const h = SignatureHeader.parse(raw);
  if (!SIGNATURES.includes(h.signature)) return null;
  return { signature: h.signature, size: h.size, format: h.format, header: SignatureHeader.size, alignment: 0 };
}

async function chunk(reader: Reader, start: number): Promise<ChunkInfo<StoreMeta> | null> {
  const h = await readHeader(reader, start);
  if (!h) return null;
  // The signatures are also constants in variable drivers: past offset 0 an unformatted header is not a store.
  const formatted = h.format === FORMATTED && h.size > h.header;
  const end = storeEnd(reader, start, { label: `${h.signature} store`, formatted, format: h.format, size: h.size });
  if (end === null) return null;
  const meta: StoreMeta = { signature: h.signature, variables: 0, deleted: 0, layouts: [], bodyStart: start + h.header, alignment: h.alignment };
  for await (const v of vssVariables(reader, meta.bodyStart, end, h.alignment)) {
    meta[v.state === 'active' ? 'variables' : 'deleted']++;
    if (!meta.layouts.includes(v.layout)) meta.layouts.push(v.layout);
  }
  return { start, end, meta };
}

async function extract(reader: Reader, info: ChunkInfo<StoreMeta>, sink: Sink): Promise<void> {
  const meta = info.meta!;
  await writeVariables(reader, vssVariables(reader, meta.bodyStart, info.end, meta.alignment), sink);
}

export const nvramVssHandler: Handler<StoreMeta> = {
  id: 'nvram-vss',
  kind: 'boot',
  doc: {
    title: 'VSS NVRAM variable store ($VSS Insyde/Intel, $SVS/$NSS Apple, Phoenix VSS2)',
    references: ['UEFITool common/nvram.h, nvramparser.cpp (parseVssStoreBody), ksy/edk2_vss.ksy, ksy/phoenix_vss2.ksy', 'EDK II MdeModulePkg/Include/Guid/VariableFormat.h'],
    limitations: ['Apple Fsys/Gaid stores and the fault-tolerant write (FTW) block are not read'],
  },
  magics: [...SIGNATURES.map((s) => ({ bytes: Buffer.from(s) })), { bytes: guidBytes(VSS2_STORE_GUID) }],
  confidence: 80,
  chunk,
  extract,
};
