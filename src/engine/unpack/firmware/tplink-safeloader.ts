// TP-Link SafeLoader factory images (Pharos CPE/WBS, Archer C7 v4+, and most TP-Link devices since 2014):
// image size (big-endian), an MD5 over a fixed salt and everything from 0x14, a vendor information block, then
// at 0x1014 a text partition table ('fwup-ptn <name> base 0x... size 0x...' lines, NUL-terminated) whose
// bases are relative to 0x1014. Each partition (os-image, file-system, support-list, soft-version, ...) is
// written under its own name.
import { createHash } from 'node:crypto';
import { FormatError } from '../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../handler.js';
import { hashRange, safeName } from './common.js';

const TABLE_AT = 0x1014;
const TABLE_SIZE = 0x800;
const MD5_SALT = Buffer.from('7a2b15ed9b98596de504ab44ac2a9f4e', 'hex');
const ENTRY = /^fwup-ptn ([\x21-\x7e]{1,31}) base 0x([0-9a-fA-F]+) size 0x([0-9a-fA-F]+)\t?\r?$/;

interface Partition {
  name: string;
  base: number;
  size: number;
}

type SafeloaderMeta = {
  vendor: string;
  md5: 'valid' | 'mismatch';
  partitions: Partition[];
};

async function chunk(reader: Reader, start: number): Promise<ChunkInfo<SafeloaderMeta> | null> {
  const head = await reader.read(start, TABLE_AT + TABLE_SIZE);
  if (head.length < TABLE_AT + 16) return null;
  const text = head.subarray(TABLE_AT).toString('latin1');
  const table = text.slice(0, Math.max(0, text.indexOf('\0')) || text.length).split('\n').filter((l) => l.length > 0);
  const partitions: Partition[] = [];
  for (const line of table) {
    const m = ENTRY.exec(line);
    if (!m) break;
    partitions.push({ name: m[1]!, base: parseInt(m[2]!, 16), size: parseInt(m[3]!, 16) });
  }
  if (partitions.length === 0) return null;
  const size = head.readUInt32BE(0);
  if (size < TABLE_AT + TABLE_SIZE) return null;
  if (start + size > reader.size) throw new FormatError(`TP-Link SafeLoader: truncated, image of ${size} bytes runs past the file (${reader.size})`);
  for (const p of partitions) {
    if (TABLE_AT + p.base + p.size > size) throw new FormatError(`TP-Link SafeLoader: partition ${p.name} runs past the image`);
  }
  const hash = await hashRange(reader, createHash('md5').update(MD5_SALT), start + 0x14, start + size);
  const vendorLength = head.readUInt32BE(0x14);
  const meta: SafeloaderMeta = {
    vendor: vendorLength > 0 && vendorLength <= TABLE_AT - 0x18 ? head.toString('latin1', 0x18, 0x18 + vendorLength).trim() : '',
    md5: hash.digest().equals(head.subarray(4, 0x14)) ? 'valid' : 'mismatch',
    partitions,
  };
  return { start, end: start + size, meta };
}

async function extract(reader: Reader, info: ChunkInfo<SafeloaderMeta>, sink: Sink): Promise<void> {
  const meta = info.meta!;
  if (meta.md5 === 'mismatch') sink.problem('warning', 'TP-Link SafeLoader: MD5 does not match the standard salt', info.start);
  const taken = new Set<string>();
  for (const p of meta.partitions) {
    let name = safeName(p.name, 'partition');
    for (let n = 1; taken.has(name); n++) name = `${safeName(p.name, 'partition')}-${n}`;
    taken.add(name);
    const from = info.start + TABLE_AT + p.base;
    await sink.copy(name, reader, from, from + p.size, { meta: { partition: p.name, base: p.base } });
  }
}

export const tplinkSafeloaderHandler: Handler<SafeloaderMeta> = {
  id: 'tplink-safeloader',
  kind: 'firmware',
  doc: {
    title: 'TP-Link SafeLoader factory image',
    references: ['OpenWrt tools/firmware-utils/src/tplink-safeloader.c (image format comment, put_partitions)'],
    limitations: ['Images with a smaller (VxWorks-era) vendor block, whose table is not at 0x1014, are not recognised'],
  },
  magics: [{ bytes: Buffer.from('fwup-ptn '), offset: TABLE_AT }],
  confidence: 80,
  chunk,
  extract,
};
