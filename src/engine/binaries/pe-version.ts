// The VS_VERSIONINFO resource of a PE file: walks the resource tree to RT_VERSION (type 16), then reads the
// VS_FIXEDFILEINFO numbers and the StringFileInfo strings (CompanyName, ProductName, ProductVersion, ...).
import { FormatError } from '../format-error.js';
import type { ByteSource } from './byte-source.js';

export interface PeVersionInfo {
  /** From VS_FIXEDFILEINFO, dotted: '7.80.0.0'. */
  fileVersion?: string;
  productVersion?: string;
  /** StringFileInfo key → value (first string table). */
  strings: Record<string, string>;
}

const RT_VERSION = 16;
const MAX_RESOURCE = 1 << 20;

export async function readVersionInfo(src: ByteSource, map: (rva: number) => number | undefined, rva: number, size: number): Promise<PeVersionInfo | undefined> {
  const at = map(rva);
  if (at === undefined) throw new FormatError(`resource directory RVA 0x${rva.toString(16)} is not mapped`);
  const tree = await src.read(at, Math.min(Math.max(size, 16), MAX_RESOURCE));
  // Level 1: type; levels 2 and 3: name and language. Take the first leaf under RT_VERSION.
  let dir = findEntry(tree, 0, RT_VERSION);
  for (let level = 0; level < 2 && dir !== undefined; level++) {
    if ((dir & 0x80000000) === 0) break;
    dir = firstEntry(tree, dir & 0x7fffffff);
  }
  if (dir === undefined || dir & 0x80000000 || dir + 16 > tree.length) return undefined;
  const dataRva = tree.readUInt32LE(dir);
  const dataSize = Math.min(tree.readUInt32LE(dir + 4), MAX_RESOURCE);
  const dataAt = map(dataRva);
  if (dataAt === undefined) throw new FormatError('version resource data is not mapped');
  const data = await src.read(dataAt, dataSize);
  return parseVersionBlock(data);
}

function entries(tree: Buffer, at: number): Array<[number, number]> {
  if (at + 16 > tree.length) throw new FormatError('resource directory outside the table');
  const count = Math.min(tree.readUInt16LE(at + 12) + tree.readUInt16LE(at + 14), 4096);
  const out: Array<[number, number]> = [];
  for (let i = 0; i < count && at + 16 + i * 8 + 8 <= tree.length; i++) {
    out.push([tree.readUInt32LE(at + 16 + i * 8), tree.readUInt32LE(at + 20 + i * 8)]);
  }
  return out;
}

function findEntry(tree: Buffer, at: number, id: number): number | undefined {
  return entries(tree, at).find(([name]) => name === id)?.[1];
}

function firstEntry(tree: Buffer, at: number): number | undefined {
  return entries(tree, at)[0]?.[1];
}

interface Block {
  key: string;
  value: Buffer;
  valueType: number;
  children: Block[];
}

const align4 = (n: number): number => (n + 3) & ~3;

/** One version block: wLength, wValueLength, wType, szKey (UTF-16), padding, value, padding, children. */
function readBlock(buf: Buffer, at: number, end: number, depth: number): Block | undefined {
  if (at + 6 > end || depth > 4) return undefined;
  const length = buf.readUInt16LE(at);
  const valueLength = buf.readUInt16LE(at + 2);
  const valueType = buf.readUInt16LE(at + 4);
  if (length < 6 || at + length > end) return undefined;
  let p = at + 6;
  let key = '';
  while (p + 2 <= at + length) {
    const c = buf.readUInt16LE(p);
    p += 2;
    if (c === 0) break;
    key += String.fromCharCode(c);
  }
  p = align4(p);
  // Text values count UTF-16 characters, binary values count bytes.
  const valueBytes = valueType === 1 ? valueLength * 2 : valueLength;
  const value = buf.subarray(p, Math.min(p + valueBytes, at + length));
  p = align4(p + valueBytes);
  const children: Block[] = [];
  while (p + 6 <= at + length) {
    const child = readBlock(buf, p, at + length, depth + 1);
    if (!child) break;
    children.push(child);
    p = align4(p + buf.readUInt16LE(p));
  }
  return { key, value, valueType, children };
}

function dotted(ms: number, ls: number): string {
  return `${ms >>> 16}.${ms & 0xffff}.${ls >>> 16}.${ls & 0xffff}`;
}

export function parseVersionBlock(data: Buffer): PeVersionInfo | undefined {
  const root = readBlock(data, 0, data.length, 0);
  if (!root || root.key !== 'VS_VERSION_INFO') return undefined;
  const info: PeVersionInfo = { strings: {} };
  if (root.value.length >= 52 && root.value.readUInt32LE(0) === 0xfeef04bd) {
    info.fileVersion = dotted(root.value.readUInt32LE(8), root.value.readUInt32LE(12));
    info.productVersion = dotted(root.value.readUInt32LE(16), root.value.readUInt32LE(20));
  }
  const stringInfo = root.children.find((c) => c.key === 'StringFileInfo');
  const table = stringInfo?.children[0];
  for (const s of table?.children ?? []) {
    const text = s.value.toString('utf16le').replace(/\0.*$/s, '').trim();
    if (text) info.strings[s.key] = text;
  }
  return info;
}
