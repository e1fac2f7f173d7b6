// romfs: "-rom1fs-", the accessible size and a checksum over the first 512 bytes, then 16-byte aligned file
// headers chained by "next" pointers whose low 4 bits hold the type and the executable bit. Written from Linux
// Documentation/filesystems/romfs.rst. romfs stores no owners or permissions: files get 0644, or 0755 when the
// executable bit is set, as the kernel does.
import type { ChunkInfo, Handler, Reader, Sink } from '../handler.js';
import { FormatError } from '../../format-error.js';
import { struct } from '../struct.js';

const SUPER = struct('be', { magic: 'bytes[8]', size: 'u32', checksum: 'u32' });
const FILE_HEADER = struct('be', { next: 'u32', spec: 'u32', size: 'u32', checksum: 'u32' });
const MAGIC = Buffer.from('-rom1fs-', 'latin1');
const MAX_NAME = 4096;
const MAX_DEPTH = 512;

enum Type {
  HardLink = 0,
  Directory = 1,
  Regular = 2,
  Symlink = 3,
  BlockDevice = 4,
  CharDevice = 5,
  Socket = 6,
  Fifo = 7,
}

/** Sum of big-endian 32-bit words: zero over the checksummed range of a valid image or header. */
function wordSum(data: Buffer): number {
  let sum = 0;
  for (let i = 0; i + 4 <= data.length; i += 4) sum = (sum + data.readUInt32BE(i)) >>> 0;
  return sum;
}

/** A NUL-terminated name padded to 16 bytes, starting at `at` of the image. */
async function readName(reader: Reader, base: number, at: number, limit: number): Promise<{ name: string; end: number }> {
  const parts: Buffer[] = [];
  for (let pos = at; pos < limit && pos - at < MAX_NAME; pos += 16) {
    const piece = await reader.readExact(base + pos, Math.min(16, limit - pos));
    const nul = piece.indexOf(0);
    parts.push(nul === -1 ? piece : piece.subarray(0, nul));
    if (nul !== -1) return { name: Buffer.concat(parts).toString('utf8'), end: pos + 16 };
  }
  throw new FormatError(`unterminated name at ${at}`);
}

async function chunk(reader: Reader, start: number): Promise<ChunkInfo | null> {
  const head = await reader.read(start, 512);
  if (head.length < 32 || !head.subarray(0, 8).equals(MAGIC)) return null;
  const sb = SUPER.parse(head);
  if (sb.size < 32 || sb.size % 16 !== 0) return null;
  // The checksum covers the first 512 bytes (or the whole image when smaller); it only tells truncation apart
  // from a false positive when those bytes are there.
  if (head.length >= Math.min(512, sb.size) && wordSum(head.subarray(0, Math.min(512, sb.size))) !== 0) return null;
  if (start + sb.size > reader.size) {
    throw new FormatError(`truncated: romfs says ${sb.size} bytes, only ${reader.size - start} available`);
  }
  const volume = await readName(reader, start, 16, sb.size);
  return { start, end: start + sb.size, meta: { volume: volume.name } };
}

async function extract(reader: Reader, info: ChunkInfo, sink: Sink): Promise<void> {
  const base = info.start;
  const limit = info.end - info.start;
  const first = (await readName(reader, base, 16, limit)).end;
  const pathAt = new Map<number, string>();
  const links: Array<{ path: string; target: number; exec: boolean }> = [];
  const visited = new Set<number>();
  const stack: Array<{ at: number; path: string; depth: number }> = [{ at: first, path: '', depth: 0 }];
  pathAt.set(first, '');

  while (stack.length > 0) {
    const dir = stack.pop()!;
    let at = dir.at;
    // Walks one directory's chain of headers; every header is visited at most once, so loops end.
    while (at !== 0) {
      sink.signal.throwIfAborted();
      if (visited.has(at)) {
        sink.problem('error', `${dir.path || '/'}: header chain loops back to ${at}`);
        break;
      }
      visited.add(at);
      let next: number;
      try {
        if (at % 16 !== 0 || at + 16 > limit) throw new FormatError(`file header at ${at} is outside the image`);
        const h = FILE_HEADER.parse(await reader.readExact(base + at, 16));
        next = h.next & ~0xf;
        const type = (h.next & 7) as Type;
        const exec = (h.next & 8) !== 0;
        const { name, end: dataStart } = await readName(reader, base, at + 16, limit);
        if (name !== '.' && name !== '..') {
          const path = await entry(reader, sink, { base, limit, at, dataStart, name, type, exec, spec: h.spec, size: h.size, dir, stack, links });
          if (path !== undefined) pathAt.set(at, path);
        }
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        sink.problem('error', `${dir.path || '/'}: ${error.message}`);
        break;
      }
      at = next;
    }
  }
  for (const link of links) {
    const target = pathAt.get(link.target);
    if (target === undefined || target === '') sink.problem('error', `${link.path}: hard link to ${link.target}, which is not a file`);
    else sink.hardlink(link.path, target, { mode: link.exec ? 0o755 : 0o644 });
  }
}

interface EntryContext {
  base: number;
  limit: number;
  at: number;
  dataStart: number;
  name: string;
  type: Type;
  exec: boolean;
  spec: number;
  size: number;
  dir: { path: string; depth: number };
  stack: Array<{ at: number; path: string; depth: number }>;
  links: Array<{ path: string; target: number; exec: boolean }>;
}

/** Extracts one header's entry; returns its path (for hard links to it) or undefined when refused. */
async function entry(reader: Reader, sink: Sink, c: EntryContext): Promise<string | undefined> {
  if (c.name === '' || c.name.includes('/')) {
    sink.problem('error', `${c.dir.path || '/'}: refused entry name ${JSON.stringify(c.name)}`);
    return undefined;
  }
  const path = c.dir.path ? `${c.dir.path}/${c.name}` : c.name;
  const mode = c.exec || c.type === Type.Directory ? 0o755 : 0o644;
  const dataEnd = c.dataStart + c.size;
  const needData = c.type === Type.Regular || c.type === Type.Symlink;
  if (needData && dataEnd > c.limit) throw new FormatError(`${path}: ${c.size} bytes of data run past the end of the image`);
  switch (c.type) {
    case Type.Directory:
      if (c.dir.depth >= MAX_DEPTH) throw new FormatError(`${path}: directories nested deeper than ${MAX_DEPTH}`);
      await sink.dir(path, { mode });
      if (c.spec !== 0) c.stack.push({ at: c.spec & ~0xf, path, depth: c.dir.depth + 1 });
      break;
    case Type.Regular:
      if (c.size === 0) await sink.file(path, Buffer.alloc(0), { mode });
      else await sink.copy(path, reader, c.base + c.dataStart, c.base + dataEnd, { mode });
      break;
    case Type.Symlink: {
      if (c.size > 65536) throw new FormatError(`${path}: symlink of ${c.size} bytes`);
      const target = await reader.readExact(c.base + c.dataStart, c.size);
      const nul = target.indexOf(0);
      sink.symlink(path, target.subarray(0, nul === -1 ? target.length : nul).toString('utf8'), { mode: 0o777 });
      break;
    }
    case Type.HardLink:
      c.links.push({ path, target: c.spec & ~0xf, exec: c.exec });
      return path;
    case Type.BlockDevice:
    case Type.CharDevice: {
      // spec.info is major << 16 | minor; rdev uses the Linux encoding SquashFS and CramFS store.
      const rdev = ((c.spec >>> 16) << 8) | (c.spec & 0xff) | ((c.spec & 0xff00) << 12);
      sink.special(path, 'device', { mode, meta: { rdev, block: c.type === Type.BlockDevice } });
      break;
    }
    case Type.Socket:
      sink.special(path, 'socket', { mode });
      break;
    case Type.Fifo:
      sink.special(path, 'fifo', { mode });
      break;
  }
  return path;
}

export const romfsHandler: Handler = {
  id: 'romfs',
  kind: 'filesystem',
  doc: {
    title: 'romfs (Linux ROM filesystem)',
    references: ['Linux Documentation/filesystems/romfs.rst', 'genromfs'],
    limitations: ['romfs keeps no owners or permissions: modes are 0755 (executable bit, directories) or 0644.'],
  },
  magics: [{ bytes: MAGIC }],
  confidence: 80,
  chunk,
  extract,
};
