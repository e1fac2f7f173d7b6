// AMI Aptio NVRAM store (the NVAR store: the body of the raw FFS file CEF5B9A3-476D-497F-9FDC-E98143E0422C, of the
// external-defaults files, or the data of a variable holding a nested store). A run of 'NVAR' entries, each with a
// 10-byte header: signature, 16-bit size, 24-bit offset to the next entry of the same variable (all ones: none) and
// attributes (runtime, ASCII name, local GUID, data-only, extended header, HW error record, auth write, valid). A
// full entry holds a GUID (or a one-byte index into the GUID store, which grows backwards from the end of the
// store), a name, then data; an update appends a data-only entry linked from the previous one, so the last entry
// of a chain holds the current value. Deleting clears the valid bit. An extended header at the end of an entry
// (its size in the last two bytes) carries extended attributes, a checksum, and for authenticated variables a
// timestamp and a hash. Each variable becomes a file named as uefi-varstore names them; older values and deleted
// variables go to 'deleted/'.
import { FormatError } from '../../../format-error.js';
import type { ChunkContext, ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import { struct } from '../../struct.js';
import { guidString } from '../uefi/guid.js';
import { efiAttributeNames, sum8, ucs2z, writeVariables, type NvramVariable } from './variables.js';

const EntryHeader = struct('le', { signature: 'char[4]', size: 'u16', next: 'bytes[3]', attributes: 'u8' });
const HEADER = EntryHeader.size;
const GUID = 16;
const NO_NEXT = 0xffffff;
const A = { runtime: 0x01, asciiName: 0x02, localGuid: 0x04, dataOnly: 0x08, extHeader: 0x10, hwError: 0x20, authWrite: 0x40, valid: 0x80 };
const EXT_CHECKSUM = 0x01;
/** Extended attributes that are the UEFI authenticated-write bits (AW 0x10, TA 0x20) themselves. */
const EXT_AUTH_BITS = 0x30;
const NVAR_ATTRIBUTES: Array<[number, string]> = [
  [A.runtime, 'runtime'], [A.asciiName, 'ascii-name'], [A.localGuid, 'local-guid'], [A.dataOnly, 'data-only'],
  [A.extHeader, 'extended-header'], [A.hwError, 'hw-error-record'], [A.authWrite, 'auth-write'], [A.valid, 'valid'],
];

interface Entry {
  /** Absolute offset of the entry. */
  offset: number;
  size: number;
  attributes: number;
  /** Absolute offset of the next entry of the same variable. */
  next?: number;
  guid?: string;
  guidIndex?: number;
  name?: string;
  extAttributes?: number;
  checksumOk?: boolean;
  dataStart: number;
  dataSize: number;
  /** Why the body could not be read (the entry is then skipped). */
  broken?: string;
}

interface Store {
  entries: Entry[];
  /** Absolute end of the last entry. */
  entriesEnd: number;
  guidCount: number;
}

type StoreMeta = {
  variables: number;
  deleted: number;
  guids: number;
  /** Data-only entries no variable links to, and entries whose body could not be read. */
  unreadable: number;
};

/** Reads the body of the entry whose bytes are `raw` (header included) at absolute offset `at`. */
function parseEntry(raw: Buffer, at: number): Entry {
  const h = EntryHeader.parse(raw);
  const next = h.next.readUIntLE(0, 3);
  const entry: Entry = { offset: at, size: h.size, attributes: h.attributes, dataStart: at + HEADER, dataSize: 0 };
  if (next !== NO_NEXT && next !== 0) entry.next = at + next;
  let dataEnd = h.size;
  if (h.attributes & A.extHeader) {
    const extSize = raw.readUInt16LE(h.size - 2);
    if (extSize < 3 || extSize > h.size - HEADER) return { ...entry, broken: `extended header of ${extSize} bytes does not fit` };
    dataEnd = h.size - extSize;
    entry.extAttributes = raw[dataEnd]!;
    // The checksum makes the 8-bit sum of size, attributes and the whole body zero.
    if (entry.extAttributes & EXT_CHECKSUM) entry.checksumOk = ((sum8(raw.subarray(4, 6)) + h.attributes + sum8(raw.subarray(HEADER, h.size))) & 0xff) === 0;
  }
  let pos = HEADER; // where the name and data start, relative to the entry
  if (!(h.attributes & A.dataOnly)) {
    if (h.attributes & A.localGuid) {
      if (pos + GUID > dataEnd) return { ...entry, broken: 'GUID runs past the entry' };
      entry.guid = guidString(raw, pos);
      pos += GUID;
    } else {
      if (pos + 1 > dataEnd) return { ...entry, broken: 'GUID index runs past the entry' };
      entry.guidIndex = raw[pos]!;
      pos += 1;
    }
    const rest = raw.subarray(pos, dataEnd);
    if (h.attributes & A.asciiName) {
      const nul = rest.indexOf(0);
      if (nul === -1) return { ...entry, broken: 'name is not terminated' };
      entry.name = rest.subarray(0, nul).toString('latin1');
      pos += nul + 1;
    } else {
      const name = ucs2z(rest);
      if (!name.terminated) return { ...entry, broken: 'name is not terminated' };
      entry.name = name.text;
      pos += name.bytes;
    }
  }
  entry.dataStart = at + pos;
  entry.dataSize = dataEnd - pos;
  return entry;
}

/** Reads the entries from `start`; where the GUID store ends is decided by the caller (storeEnd). */
async function readEntries(reader: Reader, start: number, signal?: AbortSignal): Promise<Store> {
  const entries: Entry[] = [];
  let at = start;
  let guidCount = 0;
  while (at + HEADER <= reader.size) {
    if (signal?.aborted) throw signal.reason;
    const head = await reader.read(at, HEADER);
    const h = EntryHeader.parse(head);
    if (h.signature !== 'NVAR') break;
    if (h.size <= HEADER) throw new FormatError(`NVAR entry at 0x${(at - start).toString(16)}: size ${h.size} is too small`);
    if (at + h.size > reader.size) throw new FormatError(`NVAR entry at 0x${(at - start).toString(16)}: truncated, ${h.size} bytes run past the file`);
    const entry = parseEntry(await reader.readExact(at, h.size), at);
    if (entry.guidIndex !== undefined && entry.attributes & A.valid) guidCount = Math.max(guidCount, entry.guidIndex + 1);
    entries.push(entry);
    at += h.size;
  }
  return { entries, entriesEnd: at, guidCount };
}

/**
 * The end of the store: a store at the start of a file fills it (the FFS file body, as UEFITool reads it); a carved
 * one ends after the free space (0xFF) that follows its entries and the GUID store behind it.
 */
async function storeEnd(reader: Reader, start: number, store: Store): Promise<number> {
  if (start === 0) return reader.size;
  const guidBytes = store.guidCount * GUID;
  if (guidBytes === 0) return store.entriesEnd;
  let at = store.entriesEnd;
  while (at < reader.size - guidBytes) {
    const block = await reader.read(at, Math.min(64 * 1024, reader.size - guidBytes - at));
    const used = block.findIndex((b) => b !== 0xff);
    if (used !== -1) return at + used + guidBytes;
    at += block.length;
  }
  return reader.size;
}

async function readStore(reader: Reader, start: number, signal?: AbortSignal): Promise<{ store: Store; end: number; guids: string[] }> {
  const store = await readEntries(reader, start, signal);
  if (store.entries.length === 0) throw new FormatError('NVAR store: no entry');
  const end = await storeEnd(reader, start, store);
  const guidArea = end - store.guidCount * GUID;
  if (guidArea < store.entriesEnd) throw new FormatError(`NVAR store: the GUID store (${store.guidCount} GUIDs) overlaps the entries`);
  // Deleted variables may name GUIDs past those of the valid ones (the store never shrinks): read those too when
  // they lie behind the entries.
  const wanted = Math.max(store.guidCount, ...store.entries.map((e) => (e.guidIndex ?? -1) + 1));
  const count = Math.max(store.guidCount, Math.min(wanted, Math.floor((end - store.entriesEnd) / GUID)));
  const raw = await reader.readExact(end - count * GUID, count * GUID);
  // The list runs backwards from the end: index 0 is the last 16 bytes.
  const slots = Array.from({ length: count }, (_, i) => raw.subarray(raw.length - (i + 1) * GUID, raw.length - i * GUID));
  const isErased = (g: Buffer) => g.every((b) => b === 0xff) || g.every((b) => b === 0);
  const erased = slots.findIndex((g, i) => i < store.guidCount && isErased(g));
  if (erased !== -1) throw new FormatError(`NVAR store: GUID store entry ${erased} is empty (store cut short?)`);
  return { store, end, guids: slots.map((g) => (isErased(g) ? '' : guidString(g))) };
}

/** The variables of the store: each chain of linked entries, its last value active (when valid), older ones deleted. */
function variables(store: Store, guids: string[], start: number, sink?: Sink): { list: NvramVariable[]; unreadable: number } {
  const byOffset = new Map(store.entries.map((e) => [e.offset, e]));
  const linked = new Set<Entry>();
  const list: NvramVariable[] = [];
  for (const head of store.entries) {
    if (head.attributes & A.dataOnly) continue;
    if (head.broken) {
      sink?.problem('warning', `NVAR entry at 0x${(head.offset - start).toString(16)}: ${head.broken}`, head.offset);
      continue;
    }
    const chain = [head];
    for (let link = head.next; link !== undefined; ) {
      const entry = byOffset.get(link);
      // Links only run forward to a data-only entry; anything else ends the chain.
      if (!entry || entry.offset <= chain[chain.length - 1]!.offset || !(entry.attributes & A.dataOnly) || entry.broken || linked.has(entry)) break;
      linked.add(entry);
      chain.push(entry);
      link = entry.next;
    }
    const vendorGuid = head.guid ?? guids[head.guidIndex!] ?? '';
    const ext = chain.find((e) => e.extAttributes !== undefined)?.extAttributes ?? 0;
    const bits = 0x03 | (head.attributes & A.runtime ? 0x04 : 0) | (head.attributes & A.hwError ? 0x08 : 0)
      | (head.attributes & A.authWrite ? ext & EXT_AUTH_BITS : 0);
    chain.forEach((entry, i) => {
      const active = i === chain.length - 1 && Boolean(head.attributes & A.valid) && Boolean(entry.attributes & A.valid);
      if (entry.checksumOk === false) sink?.problem('warning', `NVAR variable ${head.name}: checksum mismatch at 0x${(entry.offset - start).toString(16)}`, entry.offset);
      list.push({
        name: head.name!,
        vendorGuid,
        attributes: efiAttributeNames(bits),
        state: active ? 'active' : 'deleted',
        dataStart: entry.dataStart,
        dataSize: entry.dataSize,
        nvarAttributes: NVAR_ATTRIBUTES.filter(([bit]) => entry.attributes & bit).map(([, name]) => name),
        storeOffset: entry.offset - start,
      });
    });
  }
  const unreadable = store.entries.filter((e) => (e.attributes & A.dataOnly && !linked.has(e)) || (e.broken && !(e.attributes & A.dataOnly))).length;
  return { list, unreadable };
}

async function chunk(reader: Reader, start: number, ctx?: ChunkContext): Promise<ChunkInfo<StoreMeta> | null> {
  const head = await reader.read(start, HEADER);
  if (head.length < HEADER || head.toString('latin1', 0, 4) !== 'NVAR') return null;
  // Drivers hold 'NVAR' as a constant: a carved candidate must start with a readable, valid full entry.
  const first = EntryHeader.parse(head);
  if (start > 0 && (first.size <= HEADER || !(first.attributes & A.valid) || first.attributes & A.dataOnly)) return null;
  const { store, end, guids } = await readStore(reader, start, ctx?.signal).catch((error: unknown) => {
    if (start > 0 && error instanceof FormatError) return { store: undefined, end: 0, guids: [] };
    throw error;
  });
  if (!store) return null;
  if (start > 0 && store.entries[0]!.broken) return null;
  const { list, unreadable } = variables(store, guids, start);
  const active = list.filter((v) => v.state === 'active').length;
  const meta: StoreMeta = { variables: active, deleted: list.length - active, guids: store.guidCount, unreadable };
  return { start, end, meta };
}

async function extract(reader: Reader, info: ChunkInfo<StoreMeta>, sink: Sink): Promise<void> {
  const { store, guids } = await readStore(reader, info.start, sink.signal);
  await writeVariables(reader, variables(store, guids, info.start, sink).list, sink);
}

export const amiNvarHandler: Handler<StoreMeta> = {
  id: 'ami-nvar',
  kind: 'boot',
  doc: {
    title: 'AMI Aptio NVRAM (NVAR) variable store',
    references: ['UEFITool common/nvram.h, nvramparser.cpp, ksy/ami_nvar.ksy', 'chipsec hal/uefi_platform.py (NVAR)'],
    limitations: [
      'A store carved from the middle of a file ends after the free space behind its entries and its GUID store',
      'Data-only entries no variable links to are counted, not extracted',
    ],
  },
  magics: [{ bytes: Buffer.from('NVAR') }],
  confidence: 70,
  chunk,
  extract,
};
