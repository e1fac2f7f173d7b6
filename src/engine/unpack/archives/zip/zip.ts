// zip archives: the extent runs from the first local header to the end-of-central-directory record that is
// consistent with it (directory.ts). Entries are read from the central directory; stored ones are copied
// from the image, compressed ones are decoded as streams (methods.ts: deflate, deflate64, bzip2, LZMA, zstd, xz).
// Declared sizes are enforced (a lying size stops the entry) and the sink's byte budget stops zip bombs; CRCs are
// checked. Encrypted entries and unsupported methods are reported per entry; the rest is extracted.
import zlib from 'node:zlib';
import { FormatError } from '../../../format-error.js';
import type { ChunkContext, ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import { findLayout, readDirectory, type ZipEntry } from './directory.js';
import { encryption, entryBlocks, METHOD_NAMES } from './methods.js';

const S_IFMT = 0o170000;

async function* checked(entry: ZipEntry, blocks: AsyncGenerator<Buffer, number>, sink: Sink): AsyncGenerator<Buffer> {
  let size = 0;
  let crc = 0;
  for (;;) {
    const next = await blocks.next();
    if (next.done) break;
    if (next.value.length === 0) continue; // zlib.crc32 of an empty buffer returns 0, not the running CRC
    size += next.value.length;
    if (size > entry.size) {
      await blocks.return(0);
      throw new FormatError(`zip: ${entry.name} decodes to more than its declared ${entry.size} bytes`);
    }
    crc = zlib.crc32(next.value, crc);
    yield next.value;
  }
  if (size !== entry.size) sink.problem('warning', `zip: ${entry.name} decoded to ${size} bytes, ${entry.size} declared`);
  if (crc >>> 0 !== entry.crc) sink.problem('warning', `zip: CRC mismatch in ${entry.name}`);
}

async function dataStart(reader: Reader, base: number, entry: ZipEntry): Promise<number> {
  const at = base + entry.localOffset;
  const local = await reader.readExact(at, 30);
  if (local.readUInt32LE(0) !== 0x04034b50) throw new FormatError(`zip: no local header for ${entry.name} at ${at}`);
  return at + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
}

async function extractEntry(reader: Reader, base: number, entry: ZipEntry, sink: Sink): Promise<void> {
  const mode = entry.unixMode;
  const meta = { mode: mode ? mode & 0o7777 : undefined, mtime: entry.mtime || undefined };
  if (entry.name.endsWith('/') || (mode !== undefined && (mode & S_IFMT) === 0o040000)) return sink.dir(entry.name, meta);
  const locked = encryption(entry);
  if (locked) return sink.problem('skipped', `zip: ${entry.name} uses ${locked}; not extracted`);
  const start = await dataStart(reader, base, entry);
  if (start + entry.compressedSize > reader.size) throw new FormatError(`zip: data of ${entry.name} runs past the end of the file`);
  if (mode !== undefined && (mode & S_IFMT) === 0o120000 && entry.method === 0 && entry.compressedSize <= 4096) {
    return sink.symlink(entry.name, (await reader.readExact(start, entry.compressedSize)).toString('utf8'), meta);
  }
  if (entry.method === 0) {
    if (entry.compressedSize !== entry.size) throw new FormatError(`zip: stored entry ${entry.name} has two sizes`);
    return sink.copy(entry.name, reader, start, start + entry.size, meta);
  }
  const blocks = entryBlocks(reader, entry, start, start + entry.compressedSize, sink.signal);
  if (blocks) return sink.file(entry.name, checked(entry, blocks, sink), meta);
  const method = METHOD_NAMES[entry.method];
  sink.problem('skipped', `zip: ${entry.name} uses compression method ${entry.method}${method ? ` (${method})` : ''}, which is not supported; not extracted`);
}

export const zipHandler: Handler = {
  id: 'zip',
  kind: 'archive',
  doc: {
    title: 'zip (incl. zip64)',
    references: ['PKWARE APPNOTE.TXT 6.3.10', 'WinZip AES encryption (AE-1/AE-2, extra field 0x9901)'],
    limitations: [
      'Methods stored, deflate, deflate64, bzip2, LZMA, zstd and xz are read; others (PPMd, shrink, implode, ...) are reported per entry and skipped.',
      'A deflate64 entry is decoded from memory: one of more than 64 MiB compressed is reported and skipped.',
      'Encrypted entries (traditional PKWARE, WinZip AES, PKWARE strong encryption) are reported per entry and skipped.',
    ],
  },
  magics: [{ bytes: Buffer.from('PK\x03\x04', 'latin1') }],
  confidence: 60,
  async chunk(reader: Reader, start: number, ctx?: ChunkContext): Promise<ChunkInfo | null> {
    const local = await reader.read(start, 30);
    if (local.length < 30 || local.readUInt16LE(8) > 99) return null; // method
    const layout = await findLayout(reader, start, ctx?.signal);
    if (!layout) return null;
    return { start, end: layout.end, meta: { base: layout.base, entries: layout.entries } };
  },
  async extract(reader, chunk, sink) {
    const layout = await findLayout(reader, chunk.start, sink.signal);
    if (!layout) throw new FormatError('zip: end of central directory vanished');
    for (const entry of await readDirectory(reader, layout)) {
      sink.signal.throwIfAborted();
      try {
        await extractEntry(reader, layout.base, entry, sink);
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        sink.problem('error', error.message.includes(entry.name) ? error.message : `zip: ${entry.name}: ${error.message}`);
      }
    }
  },
};
