// Phoenix SCT EVSA NVRAM store: a 20-byte store entry (type 0xEC, checksum, size, 'EVSA', attributes, store size)
// followed by packed entries, each with a type, an 8-bit checksum and a 16-bit size: GUID entries (0xED/0xE1: a
// GUID id and the GUID), name entries (0xEE/0xE2: a variable id and a UCS-2 name) and data entries (0xEF/0xE3, or
// 0x83 once superseded: GUID id, variable id, EFI attributes, data; with attribute 0x10000000 a 32-bit data size
// follows and the data may outgrow the 16-bit entry size). A variable is a data entry joined to its name and GUID by
// id; entries of other types are stepped over and erased space ends the list. Each variable becomes a file named
// as uefi-varstore names them; superseded values go to 'deleted/'.
import { FormatError } from '../../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import { struct } from '../../struct.js';
import { guidString } from '../uefi/guid.js';
import { efiAttributeNames, sum8, ucs2z, writeVariables, type NvramVariable } from './variables.js';

const StoreEntry = struct('le', { type: 'u8', checksum: 'u8', size: 'u16', signature: 'char[4]', attributes: 'u32', storeSize: 'u32', reserved: 'u32' });
const EntryHeader = struct('le', { type: 'u8', checksum: 'u8', size: 'u16' });
const DataHeader = struct('le', { type: 'u8', checksum: 'u8', size: 'u16', guidId: 'u16', varId: 'u16', attributes: 'u32' });
const STORE_TYPE = 0xec;
const GUID_TYPES = new Set([0xed, 0xe1]);
const NAME_TYPES = new Set([0xee, 0xe2]);
const DATA_TYPES = new Set([0xef, 0xe3]);
const DATA_SUPERSEDED = 0x83;
const EXTENDED_DATA = 0x10000000;
const FREE = 0xff;

interface Entries {
  guids: Map<number, string>;
  names: Map<number, string>;
  data: Array<{ offset: number; guidId: number; varId: number; attributes: number; superseded: boolean; dataStart: number; dataSize: number }>;
  /** Offsets (relative to the store) of entries whose checksum is wrong. */
  badChecksums: number[];
}

type StoreMeta = {
  variables: number;
  deleted: number;
  /** Data entries whose name or GUID id is unknown. */
  unnamed: number;
  checksumOk: boolean;
};

/** The checksum byte makes the 8-bit sum of an entry (from its size field on) zero. */
const checksumOk = (raw: Buffer) => ((sum8(raw.subarray(2)) + raw[1]!) & 0xff) === 0;

async function readEntries(reader: Reader, start: number, end: number, signal?: AbortSignal): Promise<Entries> {
  const out: Entries = { guids: new Map(), names: new Map(), data: [], badChecksums: [] };
  let at = start + StoreEntry.size;
  while (at + EntryHeader.size <= end) {
    if (signal?.aborted) throw signal.reason;
    const h = EntryHeader.parse(await reader.readExact(at, EntryHeader.size));
    if (h.type === FREE) break;
    const known = GUID_TYPES.has(h.type) || NAME_TYPES.has(h.type) || DATA_TYPES.has(h.type) || h.type === DATA_SUPERSEDED;
    if (!known) {
      // Entries of other types (as chipsec does) are stepped over while their size holds; otherwise the list ends.
      if (h.size < EntryHeader.size || at + h.size > end) break;
      at += h.size;
      continue;
    }
    const where = `EVSA entry at 0x${(at - start).toString(16)}`;
    if (h.size < EntryHeader.size + 2 || at + h.size > end) throw new FormatError(`${where}: size ${h.size} runs past the store`);
    const raw = await reader.readExact(at, h.size);
    if (!checksumOk(raw)) out.badChecksums.push(at - start);
    let size = h.size;
    if (GUID_TYPES.has(h.type)) {
      if (h.size < 6 + 16) throw new FormatError(`${where}: GUID entry of ${h.size} bytes`);
      out.guids.set(raw.readUInt16LE(4), guidString(raw, 6));
    } else if (NAME_TYPES.has(h.type)) {
      out.names.set(raw.readUInt16LE(4), ucs2z(raw.subarray(6)).text);
    } else {
      if (h.size < DataHeader.size) throw new FormatError(`${where}: data entry of ${h.size} bytes`);
      const d = DataHeader.parse(raw);
      let dataStart = at + DataHeader.size;
      let dataSize = h.size - DataHeader.size;
      if (d.attributes & EXTENDED_DATA) {
        if (h.size < DataHeader.size + 4) throw new FormatError(`${where}: extended data entry of ${h.size} bytes`);
        dataSize = raw.readUInt32LE(DataHeader.size);
        dataStart += 4;
        size = DataHeader.size + 4 + dataSize;
        if (at + size > end) throw new FormatError(`${where}: ${dataSize} bytes of data run past the store`);
      }
      out.data.push({ offset: at - start, guidId: d.guidId, varId: d.varId, attributes: d.attributes, superseded: h.type === DATA_SUPERSEDED, dataStart, dataSize });
    }
    at += size;
  }
  return out;
}

function variables(entries: Entries): NvramVariable[] {
  const list: NvramVariable[] = [];
  for (const d of entries.data) {
    const name = entries.names.get(d.varId);
    const vendorGuid = entries.guids.get(d.guidId);
    if (name === undefined || vendorGuid === undefined) continue;
    list.push({
      name,
      vendorGuid,
      attributes: efiAttributeNames(d.attributes & 0x7f),
      state: d.superseded ? 'deleted' : 'active',
      dataStart: d.dataStart,
      dataSize: d.dataSize,
      storeOffset: d.offset,
    });
  }
  return list;
}

async function chunk(reader: Reader, start: number): Promise<ChunkInfo<StoreMeta> | null> {
  const raw = await reader.read(start, StoreEntry.size);
  if (raw.length < StoreEntry.size) return null;
  const h = StoreEntry.parse(raw);
  if (h.signature !== 'EVSA' || h.type !== STORE_TYPE || h.size !== StoreEntry.size) return null;
  if (h.storeSize <= StoreEntry.size) {
    if (start > 0) return null;
    throw new FormatError(`EVSA store: size ${h.storeSize} is too small`);
  }
  const end = start + h.storeSize;
  if (end > reader.size) throw new FormatError(`EVSA store: truncated, size ${h.storeSize} runs past the file (${reader.size})`);
  const entries = await readEntries(reader, start, end);
  const list = variables(entries);
  const active = list.filter((v) => v.state === 'active').length;
  const meta: StoreMeta = { variables: active, deleted: list.length - active, unnamed: entries.data.length - list.length, checksumOk: checksumOk(raw) };
  return { start, end, meta };
}

async function extract(reader: Reader, info: ChunkInfo<StoreMeta>, sink: Sink): Promise<void> {
  const meta = info.meta!;
  const entries = await readEntries(reader, info.start, info.end, sink.signal);
  if (!meta.checksumOk) sink.problem('warning', 'EVSA store: header checksum mismatch', info.start);
  for (const at of entries.badChecksums) sink.problem('warning', `EVSA entry at 0x${at.toString(16)}: checksum mismatch`, info.start + at);
  if (meta.unnamed) sink.problem('warning', `EVSA store: ${meta.unnamed} data entries with an unknown name or GUID id were skipped`, info.start);
  await writeVariables(reader, variables(entries), sink);
}

export const phoenixEvsaHandler: Handler<StoreMeta> = {
  id: 'phoenix-evsa',
  kind: 'boot',
  doc: {
    title: 'Phoenix SCT EVSA NVRAM variable store',
    references: ['UEFITool common/nvram.h (EVSA_*), nvramparser.cpp (parseEvsaStoreBody), ksy/phoenix_evsa.ksy', 'chipsec hal/uefi_platform.py (EVSA)'],
    limitations: ['Data entries whose name or GUID id has no entry are skipped (reported as a warning)'],
  },
  magics: [{ bytes: Buffer.from('EVSA'), offset: 4 }],
  confidence: 80,
  chunk,
  extract,
};
