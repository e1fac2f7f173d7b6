// SEAMA (Alpha Networks / D-Link "SEAttle iMAge"): a 12-byte header (magic 0x5EA3A417, reserved, meta size,
// image size), the image's MD5 when the image size is not zero, NUL-separated 'key=value' meta strings, then
// the image. A header with image size 0 is a "seal" that only carries meta data and precedes other SEAMA
// images. Big-endian normally; a byte-swapped little-endian variant exists.
import { createHash } from 'node:crypto';
import { FormatError } from '../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../handler.js';
import { hashRange, payloadExtension } from './common.js';

const MAGIC = 0x5ea3a417;
const HEADER = 12;
const MD5 = 16;

type SeamaMeta = {
  endian: 'be' | 'le';
  meta: string[];
  imageStart?: number;
  imageSize: number;
};

async function chunk(reader: Reader, start: number): Promise<ChunkInfo<SeamaMeta> | null> {
  const raw = await reader.read(start, HEADER);
  if (raw.length < HEADER) return null;
  const le = raw.readUInt32LE(0) === MAGIC;
  if (!le && raw.readUInt32BE(0) !== MAGIC) return null;
  if (raw.readUInt16BE(4) !== 0) return null;
  const metaSize = le ? raw.readUInt16LE(6) : raw.readUInt16BE(6);
  const imageSize = le ? raw.readUInt32LE(8) : raw.readUInt32BE(8);
  const md5Size = imageSize ? MD5 : 0;
  const metaStart = start + HEADER + md5Size;
  const end = metaStart + metaSize + imageSize;
  if (end > reader.size) throw new FormatError(`SEAMA: truncated, image of ${imageSize} bytes runs past the file (${reader.size})`);
  const metaRaw = await reader.readExact(metaStart, metaSize);
  const meta = metaRaw.toString('latin1').split('\0').filter((s) => s.length > 0);
  if (meta.some((s) => !/^[\x20-\x7e]+$/.test(s))) return null;
  const info: SeamaMeta = { endian: le ? 'le' : 'be', meta, imageSize };
  if (imageSize) {
    const expected = await reader.readExact(start + HEADER, MD5);
    const hash = await hashRange(reader, createHash('md5'), metaStart + metaSize, end);
    if (!hash.digest().equals(expected)) throw new FormatError('SEAMA: image MD5 mismatch');
    info.imageStart = metaStart + metaSize - start;
  }
  return { start, end, meta: info };
}

async function extract(reader: Reader, info: ChunkInfo<SeamaMeta>, sink: Sink): Promise<void> {
  const meta = info.meta!;
  if (meta.imageStart === undefined) return; // a seal: its meta strings are all it has
  const from = info.start + meta.imageStart;
  const ext = payloadExtension(await reader.read(from, 16));
  await sink.copy(`image${ext ? `.${ext}` : ''}`, reader, from, info.end, { meta: { seama: meta.meta } });
}

export const seamaHandler: Handler<SeamaMeta> = {
  id: 'seama',
  kind: 'firmware',
  doc: {
    title: 'SEAMA firmware container (D-Link / Alpha Networks)',
    references: ['OpenWrt tools/firmware-utils/src/seama.h and seama.c', 'binwalk v3 src/structures/seama.rs'],
  },
  magics: [{ bytes: Buffer.from('5ea3a4170000', 'hex') }, { bytes: Buffer.from('17a4a35e0000', 'hex') }],
  confidence: 75,
  chunk,
  extract,
};
