// Builders of vendor NVRAM stores for tests, byte by byte from the layouts in UEFITool's nvram.h: AMI NVAR entries
// and stores (GUID store at the end), VSS variables in their plain, authenticated, Apple and Intel layouts inside
// '$VSS' and VSS2 stores, Insyde '_FDC' regions, and Phoenix EVSA stores. No such images are in ../shared/corpus.
import zlib from 'node:zlib';
import { guidBytes } from '../../../../src/engine/unpack/boot/uefi/guid.js';

const sum8 = (b: Buffer) => b.reduce((s, x) => (s + x) & 0xff, 0);

export interface NvarSpec {
  /** NVAR attribute bits; VALID (0x80) is added unless `deleted`. */
  attributes?: number;
  deleted?: boolean;
  /** A full entry has a GUID (local) or a GUID index, and a name; a data-only entry has neither. */
  guid?: string;
  guidIndex?: number;
  name?: string;
  data: Buffer;
  /** Index (in the store's list) of the next entry of this variable. */
  next?: number;
  /** Extended header: attributes, and for auth variables a timestamp (and a hash when not data-only). */
  ext?: { attributes: number; timestamp?: bigint; hash?: Buffer; badChecksum?: boolean };
}

export const NVAR = { runtime: 0x01, asciiName: 0x02, localGuid: 0x04, dataOnly: 0x08, extHeader: 0x10, hwError: 0x20, authWrite: 0x40, valid: 0x80 };

function nvarEntry(spec: NvarSpec): Buffer {
  let attributes = (spec.attributes ?? 0) | (spec.deleted ? 0 : NVAR.valid);
  const parts: Buffer[] = [];
  if (spec.guid) {
    attributes |= NVAR.localGuid;
    parts.push(guidBytes(spec.guid));
  } else if (spec.guidIndex !== undefined) parts.push(Buffer.from([spec.guidIndex]));
  if (spec.name !== undefined) parts.push(attributes & NVAR.asciiName ? Buffer.from(`${spec.name}\0`, 'latin1') : Buffer.from(`${spec.name}\0`, 'utf16le'));
  if (spec.guid === undefined && spec.name === undefined) attributes |= NVAR.dataOnly;
  parts.push(spec.data);
  let tail = Buffer.alloc(0);
  if (spec.ext) {
    attributes |= NVAR.extHeader;
    const fields: Buffer[] = [Buffer.from([spec.ext.attributes])];
    if (spec.ext.timestamp !== undefined) {
      const t = Buffer.alloc(8);
      t.writeBigUInt64LE(spec.ext.timestamp);
      fields.push(t);
    }
    if (spec.ext.hash) fields.push(spec.ext.hash);
    const checksum = spec.ext.attributes & 0x01 ? 1 : 0;
    tail = Buffer.concat([...fields, Buffer.alloc(checksum + 2)]);
    tail.writeUInt16LE(tail.length, tail.length - 2);
  }
  const entry = Buffer.concat([Buffer.from('NVAR'), Buffer.alloc(6), ...parts, tail]);
  entry.writeUInt16LE(entry.length, 4);
  entry.writeUIntLE(0xffffff, 6, 3);
  entry[9] = attributes;
  if (spec.ext && spec.ext.attributes & 0x01) {
    // The checksum byte (before the size) makes size, attributes and body sum to zero.
    const at = entry.length - 3;
    entry[at] = (0x100 - ((sum8(entry.subarray(4, 6)) + attributes + sum8(entry.subarray(10))) & 0xff)) & 0xff;
    if (spec.ext.badChecksum) entry[at] ^= 0x55;
  }
  return entry;
}

/** An NVAR store of `size` bytes: the entries, free space (0xFF), then the GUIDs, index 0 last. */
export function nvarStore(specs: NvarSpec[], guids: string[], size?: number): Buffer {
  const entries = specs.map(nvarEntry);
  const offsets: number[] = [];
  let at = 0;
  for (const e of entries) {
    offsets.push(at);
    at += e.length;
  }
  specs.forEach((s, i) => {
    if (s.next !== undefined) entries[i]!.writeUIntLE(offsets[s.next]! - offsets[i]!, 6, 3);
  });
  const guidArea = Buffer.concat(guids.map(guidBytes).reverse());
  const total = size ?? at + 64 + guidArea.length;
  return Buffer.concat([...entries, Buffer.alloc(total - at - guidArea.length, 0xff), guidArea]);
}

export type VssLayout = 'plain' | 'auth' | 'apple' | 'intel';

export interface VssSpec {
  name: string;
  guid: string;
  data: Buffer;
  layout?: VssLayout;
  state?: number;
  attributes?: number;
}

export function vssVariable(v: VssSpec): Buffer {
  const layout = v.layout ?? 'plain';
  const name = Buffer.from(`${v.name}\0`, 'utf16le');
  const attributes = (v.attributes ?? (layout === 'auth' ? 0x27 : 0x07)) | (layout === 'apple' ? 0x80000000 : 0);
  const size = { plain: 32, apple: 36, auth: 60, intel: 28 }[layout];
  const header = Buffer.alloc(size);
  header.writeUInt16LE(0x55aa, 0);
  header[2] = v.state ?? (layout === 'intel' ? 0xfc : 0x3f);
  header.writeUInt32LE(attributes >>> 0, 4);
  if (layout === 'intel') {
    header.writeUInt32LE(size + name.length + v.data.length, 8);
    guidBytes(v.guid).copy(header, 12);
  } else {
    let at = 8;
    if (layout === 'auth') {
      header.writeBigUInt64LE(7n, 8);
      header.writeUInt16LE(2023, 16);
      header[18] = 6;
      header[19] = 1;
      at = 36;
      header.writeUInt32LE(3, 32);
    }
    header.writeUInt32LE(name.length, at);
    header.writeUInt32LE(v.data.length, at + 4);
    guidBytes(v.guid).copy(header, at + 8);
    if (layout === 'apple') header.writeUInt32LE(zlib.crc32(v.data) >>> 0, 32);
  }
  return Buffer.concat([header, name, v.data]);
}

/** A '$VSS'-style store (16-byte header, packed variables unless `align`) or, with `vss2`, a VSS2 store (GUID header, 4-aligned). */
export function vssStore(vars: VssSpec[], { signature = '$VSS', vss2 = false, size, align = vss2 ? 4 : 1 }: { signature?: string; vss2?: boolean; size?: number; align?: number } = {}): Buffer {
  const headerSize = vss2 ? 28 : 16;
  const body = Buffer.concat(vars.map((v) => {
    const raw = vssVariable(v);
    return Buffer.concat([raw, Buffer.alloc((align - (raw.length % align)) % align, 0xff)]);
  }));
  const total = size ?? headerSize + body.length + 48;
  const store = Buffer.alloc(total, 0xff);
  if (vss2) guidBytes('DDCF3617-3275-4164-98B6-FE85707FFE7D').copy(store, 0);
  else store.write(signature, 0, 'latin1');
  store.writeUInt32LE(total, headerSize - 12);
  store[headerSize - 8] = 0x5a;
  store[headerSize - 7] = 0xfe;
  store.writeUInt16LE(0, headerSize - 6);
  store.writeUInt32LE(0, headerSize - 4);
  body.copy(store, headerSize);
  return store;
}

/** An Insyde '_FDC' region: signature, size, a 0x48-byte volume header, then the store (its size field is ignored). */
export function fdcRegion(store: Buffer, size = 8 + 0x48 + store.length): Buffer {
  const region = Buffer.alloc(size, 0xff);
  region.write('_FDC', 0, 'latin1');
  region.writeUInt32LE(size, 4);
  const fv = Buffer.alloc(0x48);
  fv.write('_FVH', 0x28, 'latin1');
  fv.writeUInt16LE(0x48, 0x30);
  fv[0x37] = 2;
  fv.copy(region, 8);
  store.copy(region, 8 + 0x48);
  return region;
}

function evsaEntry(type: number, body: Buffer): Buffer {
  const entry = Buffer.concat([Buffer.from([type, 0, 0, 0]), body]);
  entry.writeUInt16LE(entry.length, 2);
  entry[1] = (0x100 - sum8(entry.subarray(2))) & 0xff;
  return entry;
}

export const evsaGuid = (id: number, guid: string) => evsaEntry(0xed, Buffer.concat([u16(id), guidBytes(guid)]));
export const evsaName = (id: number, name: string) => evsaEntry(0xee, Buffer.concat([u16(id), Buffer.from(`${name}\0`, 'utf16le')]));

export function evsaData(guidId: number, varId: number, data: Buffer, { attributes = 0x07, superseded = false, extended = false } = {}): Buffer {
  const head = Buffer.concat([u16(guidId), u16(varId), u32(attributes | (extended ? 0x10000000 : 0))]);
  if (!extended) return evsaEntry(superseded ? 0x83 : 0xef, Buffer.concat([head, data]));
  // The entry's 16-bit size covers the header; the 32-bit data size follows it.
  const entry = evsaEntry(superseded ? 0x83 : 0xef, Buffer.concat([head, u32(data.length)]));
  return Buffer.concat([entry, data]);
}

export function evsaStore(entries: Buffer[], size?: number): Buffer {
  const body = Buffer.concat(entries);
  const total = size ?? 20 + body.length + 32;
  const store = Buffer.alloc(total, 0xff);
  store[0] = 0xec;
  store.writeUInt16LE(20, 2);
  store.write('EVSA', 4, 'latin1');
  store.writeUInt32LE(0, 8);
  store.writeUInt32LE(total, 12);
  store.writeUInt32LE(0, 16);
  store[1] = (0x100 - sum8(store.subarray(2, 20))) & 0xff;
  body.copy(store, 20);
  return store;
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}
