// RPM header blobs as stored in rpmdb (the header without its 8-byte magic): index count, data length, 16-byte
// index entries (tag, type, offset, count), then the data store. Only the tags the inventory needs are decoded.
import { FormatError } from '../format-error.js';

export const TAG = {
  NAME: 1000,
  VERSION: 1001,
  RELEASE: 1002,
  EPOCH: 1003,
  VENDOR: 1011,
  LICENSE: 1014,
  ARCH: 1022,
  PROVIDENAME: 1047,
  REQUIRENAME: 1049,
  DIRINDEXES: 1116,
  BASENAMES: 1117,
  DIRNAMES: 1118,
  SOURCERPM: 1044,
} as const;

const STRING = 6;
const STRING_ARRAY = 8;
const I18NSTRING = 9;
const INT32 = 4;

export type HeaderValue = string | string[] | number[];

export function parseRpmHeader(blob: Buffer): Map<number, HeaderValue> {
  if (blob.length < 8) throw new FormatError('RPM header shorter than its 8-byte preamble');
  const il = blob.readUInt32BE(0);
  const dl = blob.readUInt32BE(4);
  const dataStart = 8 + il * 16;
  if (il > 100_000 || dataStart + dl > blob.length) throw new FormatError(`RPM header sizes out of range (${il} entries, ${dl} data bytes, blob ${blob.length})`);
  const data = blob.subarray(dataStart, dataStart + dl);
  const out = new Map<number, HeaderValue>();
  const str = (at: number): [string, number] => {
    const end = data.indexOf(0, at);
    if (at < 0 || at >= data.length || end === -1) throw new FormatError(`RPM string at ${at} outside the data store`);
    return [data.toString('utf8', at, end), end + 1];
  };
  for (let i = 0; i < il; i++) {
    const e = 8 + i * 16;
    const tag = blob.readUInt32BE(e);
    const type = blob.readUInt32BE(e + 4);
    const offset = blob.readInt32BE(e + 8);
    const count = blob.readUInt32BE(e + 12);
    if (!Object.values(TAG).includes(tag as never)) continue;
    if (type === STRING || ((type === I18NSTRING || type === STRING_ARRAY) && count >= 1 && tag < 1047)) {
      out.set(tag, str(offset)[0]);
    } else if (type === STRING_ARRAY || type === I18NSTRING) {
      const list: string[] = [];
      let at = offset;
      for (let n = 0; n < Math.min(count, 1_000_000); n++) {
        const [s, next] = str(at);
        list.push(s);
        at = next;
      }
      out.set(tag, list);
    } else if (type === INT32) {
      if (offset < 0 || offset + count * 4 > data.length) throw new FormatError(`RPM INT32 array for tag ${tag} outside the data store`);
      out.set(tag, Array.from({ length: count }, (_, n) => data.readInt32BE(offset + n * 4)));
    }
  }
  return out;
}

export function headerString(h: Map<number, HeaderValue>, tag: number): string | undefined {
  const v = h.get(tag);
  return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? (v[0] as string) : undefined;
}

export function headerStrings(h: Map<number, HeaderValue>, tag: number): string[] {
  const v = h.get(tag);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : [];
}

/** Installed file paths from BASENAMES, DIRNAMES and DIRINDEXES. */
export function headerFiles(h: Map<number, HeaderValue>): string[] {
  const base = headerStrings(h, TAG.BASENAMES);
  const dirs = headerStrings(h, TAG.DIRNAMES);
  const idx = h.get(TAG.DIRINDEXES);
  if (!Array.isArray(idx)) return [];
  return base.map((b, i) => `${dirs[idx[i] as number] ?? ''}${b}`).filter((p) => p.startsWith('/'));
}
