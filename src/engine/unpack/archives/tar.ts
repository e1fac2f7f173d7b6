// tar (POSIX ustar, GNU and pax): 512-byte headers with an octal checksum, data padded to 512 bytes, two zero
// blocks at the end. Written from the POSIX pax/ustar description; files are copied straight from the image
// (no buffering), long names come from GNU 'L'/'K' records and pax 'path'/'linkpath' records.
import { FormatError } from '../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../handler.js';

const BLOCK = 512;
const RECORD = 20 * BLOCK;
const MAX_META = 1024 * 1024; // long-name and pax records larger than this are not real

function octal(field: Buffer): number {
  // GNU base-256 for large values: top bit of the first byte set.
  if (field[0]! & 0x80) {
    let value = field[0]! & 0x7f;
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i]!;
    return value;
  }
  const text = field.toString('latin1').replace(/\0.*$/s, '').trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) return Number.NaN;
  return Number.parseInt(text, 8);
}

function str(field: Buffer): string {
  const nul = field.indexOf(0);
  return field.subarray(0, nul === -1 ? field.length : nul).toString('utf8');
}

export function validHeader(block: Buffer): boolean {
  if (block.length < BLOCK) return false;
  const stored = octal(block.subarray(148, 156));
  if (!Number.isFinite(stored)) return false;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
  return sum === stored && Number.isFinite(octal(block.subarray(124, 136)));
}

const isZero = (b: Buffer) => b.length === BLOCK && b.every((x) => x === 0);

interface Entry {
  header: Buffer;
  type: string;
  size: number;
  dataStart: number;
}

/** Walks the archive from `start`, calling `onEntry` for each header; returns the archive's end. */
async function walk(reader: Reader, start: number, onEntry?: (e: Entry) => Promise<void>, signal?: AbortSignal): Promise<number> {
  let at = start;
  let entries = 0;
  for (;;) {
    signal?.throwIfAborted();
    const block = await reader.read(at, BLOCK);
    if (block.length < BLOCK) {
      if (entries === 0) throw new FormatError('tar: truncated header');
      return at; // archive without end blocks, ending with the file
    }
    if (isZero(block)) {
      // End of archive: the zero blocks that follow (record padding, often several 10 KiB records) belong to it.
      at += BLOCK;
      for (;;) {
        const zeros = await reader.read(at, RECORD);
        let n = 0;
        while (n + BLOCK <= zeros.length && isZero(zeros.subarray(n, n + BLOCK))) n += BLOCK;
        at += n;
        if (n < RECORD) return at;
      }
    }
    if (!validHeader(block)) {
      if (entries === 0) return -1;
      return at; // garbage after the last entry: the archive ends here (no end blocks)
    }
    const size = octal(block.subarray(124, 136));
    const type = String.fromCharCode(block[156]!);
    const dataStart = at + BLOCK;
    const padded = Math.ceil(size / BLOCK) * BLOCK;
    if (dataStart + size > reader.size) throw new FormatError(`tar: entry data of ${size} bytes at ${dataStart} runs past the end of the file`);
    await onEntry?.({ header: block, type, size, dataStart });
    entries++;
    at = dataStart + padded;
  }
}

function parsePax(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space === -1) break;
    const length = Number.parseInt(data.subarray(at, space).toString('latin1'), 10);
    if (!(length > 0) || at + length > data.length) break;
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    at += length;
  }
  return out;
}

async function extractEntries(reader: Reader, start: number, sink: Sink): Promise<void> {
  let longName: string | undefined;
  let longLink: string | undefined;
  let pax: Record<string, string> = {};
  let globalPax: Record<string, string> = {};
  await walk(
    reader,
    start,
    async ({ header, type, size, dataStart }) => {
      if (type === 'L' || type === 'K' || type === 'x' || type === 'g') {
        if (size > MAX_META) throw new FormatError(`tar: ${type} record of ${size} bytes`);
        const data = await reader.readExact(dataStart, size);
        if (type === 'L') longName = str(data);
        else if (type === 'K') longLink = str(data);
        else if (type === 'x') pax = parsePax(data);
        else globalPax = { ...globalPax, ...parsePax(data) };
        return;
      }
      const ustar = header.subarray(257, 262).toString('latin1') === 'ustar';
      const prefix = ustar ? str(header.subarray(345, 500)) : '';
      const plain = str(header.subarray(0, 100));
      const attrs = { ...globalPax, ...pax };
      const name = attrs.path ?? longName ?? (prefix ? `${prefix}/${plain}` : plain);
      const link = attrs.linkpath ?? longLink ?? str(header.subarray(157, 257));
      longName = longLink = undefined;
      pax = {};
      const meta = {
        mode: octal(header.subarray(100, 108)) & 0o7777,
        uid: octal(header.subarray(108, 116)),
        gid: octal(header.subarray(116, 124)),
        mtime: Number(attrs.mtime ?? octal(header.subarray(136, 148))) | 0,
      };
      switch (type) {
        case '0':
        case '\0':
        case '7':
          return name.endsWith('/') ? sink.dir(name, meta) : sink.copy(name, reader, dataStart, dataStart + size, meta);
        case 'S':
          sink.problem('warning', `tar: GNU sparse file ${name} extracted as stored (holes not expanded)`);
          return sink.copy(name, reader, dataStart, dataStart + size, meta);
        case '1':
          return sink.hardlink(name, link, meta);
        case '2':
          return sink.symlink(name, link, meta);
        case '3':
        case '4':
          return sink.special(name, 'device', meta);
        case '5':
          return sink.dir(name, meta);
        case '6':
          return sink.special(name, 'fifo', meta);
        default:
          sink.problem('skipped', `tar: entry ${name} of unsupported type '${type}'`);
      }
    },
    sink.signal,
  );
}

export const tarHandler: Handler = {
  id: 'tar',
  kind: 'archive',
  doc: {
    title: 'tar (ustar, GNU, pax)',
    references: ['POSIX.1-2017 pax: ustar Interchange Format', 'GNU tar manual, "Basic Tar Format"'],
    limitations: ['GNU sparse files are extracted as stored; old v7 archives without the ustar magic are not carved.'],
  },
  magics: [{ bytes: Buffer.from('ustar', 'latin1'), offset: 257 }],
  confidence: 60,
  async chunk(reader: Reader, start: number): Promise<ChunkInfo | null> {
    if (!validHeader(await reader.read(start, BLOCK))) return null;
    const end = await walk(reader, start);
    return end <= start ? null : { start, end };
  },
  async extract(reader, chunk, sink) {
    await extractEntries(reader, chunk.start, sink);
  },
};
