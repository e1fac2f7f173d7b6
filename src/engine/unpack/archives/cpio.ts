// cpio archives in their four encodings: newc (070701) and crc (070702) with 8-digit hex fields and 4-byte
// alignment, odc (070707) with octal fields, and the old binary format (0x71C7 in either byte order) with
// 2-byte alignment. Written from the cpio(5) manual; the archive ends after the 'TRAILER!!!' entry.
import { FormatError } from '../../format-error.js';
import type { ChunkInfo, EntryMeta, Handler, Reader, Sink } from '../handler.js';

type Variant = 'newc' | 'odc' | 'binary-le' | 'binary-be';

interface Entry {
  name: string;
  mode: number;
  uid: number;
  gid: number;
  mtime: number;
  size: number;
  dataStart: number;
  next: number;
}

const MAX_NAME = 4096;
const S_IFMT = 0o170000;
const align = (n: number, to: number) => Math.ceil(n / to) * to;

function field(text: string, radix: 8 | 16): number {
  if (!(radix === 16 ? /^[0-9a-fA-F]+$/ : /^[0-7]+$/).test(text)) return Number.NaN;
  return Number.parseInt(text, radix);
}

function variantOf(magic: Buffer): Variant | null {
  const text = magic.subarray(0, 6).toString('latin1');
  if (text === '070701' || text === '070702') return 'newc';
  if (text === '070707') return 'odc';
  if (magic[0] === 0xc7 && magic[1] === 0x71) return 'binary-le';
  if (magic[0] === 0x71 && magic[1] === 0xc7) return 'binary-be';
  return null;
}

/** Reads the entry header at `at`; null when it is not a valid header of this variant. */
async function readEntry(reader: Reader, at: number, variant: Variant): Promise<Entry | null> {
  const start = at;
  let h: Omit<Entry, 'name' | 'dataStart' | 'next'>;
  let nameSize: number;
  let headerSize: number;
  let pad: number;
  if (variant === 'newc') {
    const b = await reader.read(at, 110);
    if (b.length < 110 || variantOf(b) !== 'newc') return null;
    const f = (i: number) => field(b.subarray(6 + i * 8, 14 + i * 8).toString('latin1'), 16);
    h = { mode: f(1), uid: f(2), gid: f(3), mtime: f(5), size: f(6) };
    nameSize = f(11);
    headerSize = 110;
    pad = 4;
  } else if (variant === 'odc') {
    const b = await reader.read(at, 76);
    if (b.length < 76 || variantOf(b) !== 'odc') return null;
    const f = (from: number, len: number) => field(b.subarray(from, from + len).toString('latin1'), 8);
    h = { mode: f(18, 6), uid: f(24, 6), gid: f(30, 6), mtime: f(48, 11), size: f(65, 11) };
    nameSize = f(59, 6);
    headerSize = 76;
    pad = 1;
  } else {
    const b = await reader.read(at, 26);
    if (b.length < 26 || variantOf(b) !== variant) return null;
    const u16 = (i: number) => (variant === 'binary-le' ? b.readUInt16LE(i) : b.readUInt16BE(i));
    h = { mode: u16(6), uid: u16(8), gid: u16(10), mtime: u16(16) * 65536 + u16(18), size: u16(22) * 65536 + u16(24) };
    nameSize = u16(20);
    headerSize = 26;
    pad = 2;
  }
  if (![h.mode, h.uid, h.gid, h.mtime, h.size, nameSize].every(Number.isFinite)) return null;
  if (nameSize < 1 || nameSize > MAX_NAME) return null;
  const rawName = await reader.read(at + headerSize, nameSize);
  if (rawName.length < nameSize) throw new FormatError('cpio: truncated name');
  const name = rawName.subarray(0, rawName.indexOf(0) === -1 ? nameSize : rawName.indexOf(0)).toString('utf8');
  const dataStart = start + align(headerSize + nameSize, pad);
  const next = align(dataStart - start + h.size, pad) + start;
  return { ...h, name, dataStart, next };
}

/**
 * Walks the entries from `start`. Returns the archive's end and whether it closed with its trailer: an archive
 * that breaks off (a damaged header, data past the end of the file) ends before the entry that breaks, so
 * every entry header after it is not walked again as a candidate of its own (no quadratic rescans).
 */
async function walk(
  reader: Reader,
  start: number,
  onEntry?: (e: Entry) => Promise<void>,
  signal?: AbortSignal,
): Promise<{ end: number; trailer: boolean; reason?: string }> {
  const variant = variantOf(await reader.read(start, 6));
  if (!variant) return { end: -1, trailer: false };
  let at = start;
  for (let index = 0; ; index++) {
    signal?.throwIfAborted();
    const entry = await readEntry(reader, at, variant);
    let reason: string | undefined;
    if (!entry) reason = `invalid header at ${at} before the trailer`;
    else if (entry.name === 'TRAILER!!!') return { end: Math.min(entry.next, reader.size), trailer: true };
    else if (entry.dataStart + entry.size > reader.size) reason = `data of ${entry.name} runs past the end of the file`;
    if (reason !== undefined) {
      if (index === 0) {
        if (!entry) return { end: -1, trailer: false };
        throw new FormatError(`cpio: ${reason}`);
      }
      return { end: at, trailer: false, reason };
    }
    await onEntry?.(entry!);
    at = entry!.next;
  }
}

async function extractEntry(reader: Reader, e: Entry, sink: Sink): Promise<void> {
  if (e.name === '.' || e.name === './') return;
  const meta: EntryMeta = { mode: e.mode & 0o7777, uid: e.uid, gid: e.gid, mtime: e.mtime };
  switch (e.mode & S_IFMT) {
    case 0o040000:
      return sink.dir(e.name, meta);
    case 0o120000: {
      const target = (await reader.readExact(e.dataStart, Math.min(e.size, 4096))).toString('utf8');
      return sink.symlink(e.name, target, meta);
    }
    case 0o020000:
    case 0o060000:
      return sink.special(e.name, 'device', meta);
    case 0o010000:
      return sink.special(e.name, 'fifo', meta);
    case 0o140000:
      return sink.special(e.name, 'socket', meta);
    default:
      return sink.copy(e.name, reader, e.dataStart, e.dataStart + e.size, meta);
  }
}

export const cpioHandler: Handler = {
  id: 'cpio',
  kind: 'archive',
  doc: {
    title: 'cpio (newc, crc, odc, binary)',
    references: ['cpio(5) (libarchive): "cpio — format of cpio archive files"', 'Linux Documentation/driver-api/early-userspace/buffer-format.rst'],
    limitations: ['Hard-linked files of newc archives keep their data only on the entry that carries it.'],
  },
  magics: [
    { bytes: Buffer.from('070701', 'latin1') },
    { bytes: Buffer.from('070702', 'latin1') },
    { bytes: Buffer.from('070707', 'latin1') },
    { bytes: Buffer.from([0xc7, 0x71]) },
    { bytes: Buffer.from([0x71, 0xc7]) },
  ],
  confidence: 60,
  async chunk(reader: Reader, start: number): Promise<ChunkInfo | null> {
    const variant = variantOf(await reader.read(start, 6));
    const first = variant ? await readEntry(reader, start, variant) : null;
    if (!first || first.name === '' || /[\x00-\x1f]/.test(first.name)) return null;
    try {
      const { end, trailer, reason } = await walk(reader, start);
      if (end <= start) return null;
      // A binary-format candidate that breaks off is more likely chance than a damaged archive.
      if (!trailer && variant !== 'newc' && variant !== 'odc') return null;
      return { start, end, meta: trailer ? undefined : { broken: reason } };
    } catch (error) {
      // The binary magic is two bytes: a candidate that breaks down is a false positive, not a corrupt archive.
      if (error instanceof FormatError && variant !== 'newc' && variant !== 'odc') return null;
      throw error;
    }
  },
  async extract(reader, chunk, sink) {
    const { reason } = await walk(reader, chunk.start, (e) => extractEntry(reader, e, sink), sink.signal);
    if (reason) sink.problem('warning', `cpio: archive breaks off (${reason}); the entries before it were extracted`, chunk.start);
  },
};
