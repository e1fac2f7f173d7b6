// ISO 9660 (CD-ROM) images: volume descriptors from sector 16, the primary volume's size gives the chunk end,
// and the directory hierarchy is read from the Rock Ridge tree when present (POSIX names, modes, symlinks),
// else from the Joliet tree (Unicode long names), else from plain ISO names. Written from ECMA-119, SUSP/RRIP
// 1.12 and the Joliet specification.
import { FormatError } from '../../../format-error.js';
import type { ChunkInfo, EntryMeta, Handler, Reader, Sink } from '../../handler.js';
import { bootCatalogBlock, bootImages } from './eltorito.js';
import { FLAG_DIRECTORY, FLAG_MULTI_EXTENT, parseRecord, parseSusp, type DirRecord, type RockRidge } from './susp.js';

const SECTOR = 2048;
const DESCRIPTORS_AT = 16 * SECTOR;
const MAX_DESCRIPTORS = 64;
const MAX_DIR_BYTES = 16 * 1024 * 1024;
const S_IFMT = 0o170000;

interface Volume {
  blockSize: number;
  blocks: number;
  label: string;
  root: DirRecord;
  joliet?: DirRecord;
  bootCatalog?: number;
}

async function readVolume(reader: Reader, start: number): Promise<Volume | null> {
  let primary: Volume | null = null;
  let joliet: DirRecord | undefined;
  let bootCatalog: number | undefined;
  for (let i = 0; i < MAX_DESCRIPTORS; i++) {
    const d = await reader.read(start + DESCRIPTORS_AT + i * SECTOR, SECTOR);
    if (d.length < SECTOR || d.toString('latin1', 1, 6) !== 'CD001') break;
    const type = d[0]!;
    if (type === 255) break;
    if (type === 0) bootCatalog = bootCatalogBlock(d) ?? bootCatalog;
    if (type === 1 && !primary) {
      const blockSize = d.readUInt16LE(128);
      const blocks = d.readUInt32LE(80);
      const root = parseRecord(d, 156);
      if (![512, 1024, 2048].includes(blockSize) || blocks === 0 || !root) return null;
      primary = { blockSize, blocks, label: d.toString('latin1', 40, 72).trim(), root };
    } else if (type === 2) {
      const escapes = d.toString('latin1', 88, 91);
      if (['%/@', '%/C', '%/E'].includes(escapes)) joliet = parseRecord(d, 156) ?? undefined;
    }
  }
  if (primary && joliet) primary.joliet = joliet;
  if (primary && bootCatalog !== undefined) primary.bootCatalog = bootCatalog;
  return primary;
}

type NameMode = 'rockridge' | 'joliet' | 'iso';

class IsoReader {
  private readonly visited = new Set<number>();
  constructor(
    readonly reader: Reader,
    readonly base: number,
    readonly vol: Volume,
    readonly mode: NameMode,
    readonly skip: number,
    readonly sink: Sink,
  ) {}

  private async directory(record: DirRecord): Promise<DirRecord[]> {
    if (record.size > MAX_DIR_BYTES) throw new FormatError(`directory of ${record.size} bytes is too large`);
    const data = await this.reader.readExact(this.base + record.extent * this.vol.blockSize, record.size);
    const out: DirRecord[] = [];
    let at = 0;
    while (at < data.length) {
      if (data[at] === 0) {
        // Records never cross a sector: a zero length byte pads to the next one.
        at = (Math.floor(at / SECTOR) + 1) * SECTOR;
        continue;
      }
      const rec = parseRecord(data, at);
      if (!rec) throw new FormatError(`bad directory record at offset ${at} of block ${record.extent}`);
      out.push(rec);
      at += rec.length;
    }
    return out;
  }

  private name(rec: DirRecord, rr: RockRidge): string {
    if (this.mode === 'rockridge' && rr.name) return rr.name;
    if (this.mode === 'joliet') {
      const units = rec.ident.length & ~1;
      const swapped = Buffer.from(rec.ident.subarray(0, units));
      swapped.swap16();
      return stripVersion(swapped.toString('utf16le'));
    }
    return stripVersion(rec.ident.toString('latin1'));
  }

  async walk(): Promise<void> {
    const stack: Array<{ rec: DirRecord; path: string }> = [{ rec: this.mode === 'joliet' ? this.vol.joliet! : this.vol.root, path: '' }];
    this.visited.add(stack[0]!.rec.extent);
    while (stack.length) {
      if (this.sink.signal.aborted) throw this.sink.signal.reason;
      const { rec: dir, path: dirPath } = stack.pop()!;
      let records: DirRecord[];
      try {
        records = await this.directory(dir);
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        this.sink.problem('error', `ISO 9660: directory ${dirPath || '/'}: ${error.message}`);
        continue;
      }
      for (let i = 0; i < records.length; i++) {
        const rec = records[i]!;
        if (rec.ident.length === 1 && rec.ident[0]! <= 1) continue; // "." and ".."
        let path = dirPath;
        try {
          const rr = this.mode === 'rockridge' ? await parseSusp(rec.systemUse, this.reader, this.base, this.vol.blockSize, this.skip) : {};
          if (rr.relocated) continue;
          const name = this.name(rec, rr);
          if (!name || name === '.' || name === '..' || name.includes('/')) {
            this.sink.problem('error', `ISO 9660: bad name ${JSON.stringify(name)} in ${dirPath || '/'}`);
            continue;
          }
          path = dirPath ? `${dirPath}/${name}` : name;
          const meta: EntryMeta = { mtime: rec.mtime };
          if (rr.mode !== undefined) Object.assign(meta, { mode: rr.mode & 0o7777, uid: rr.uid, gid: rr.gid });
          const type = rr.mode !== undefined ? rr.mode & S_IFMT : rec.flags & FLAG_DIRECTORY ? 0o040000 : 0o100000;
          if (rr.childLink !== undefined || type === 0o040000) {
            const target = rr.childLink !== undefined ? await this.relocated(rr.childLink) : rec;
            if (this.visited.has(target.extent)) {
              this.sink.problem('error', `ISO 9660: directory loop at ${path}`);
              continue;
            }
            this.visited.add(target.extent);
            if (!dirPath && name.toLowerCase() === 'rr_moved' && (await this.onlyRelocated(target))) continue;
            await this.sink.dir(path, meta);
            stack.push({ rec: target, path });
          } else if (rr.symlink !== undefined || type === 0o120000) this.sink.symlink(path, rr.symlink ?? '', meta);
          else if (type === 0o020000 || type === 0o060000) this.sink.special(path, 'device', { ...meta, meta: { ...rr.device } });
          else if (type === 0o010000) this.sink.special(path, 'fifo', meta);
          else if (type === 0o140000) this.sink.special(path, 'socket', meta);
          else {
            // A file larger than 4 GiB is split over several records of the same name flagged multi-extent.
            const extents = [rec];
            while (extents[extents.length - 1]!.flags & FLAG_MULTI_EXTENT && i + 1 < records.length) extents.push(records[++i]!);
            await this.sink.file(path, this.content(extents, path), meta);
          }
        } catch (error) {
          if (!(error instanceof FormatError)) throw error;
          this.sink.problem('error', `ISO 9660: ${path || dirPath || '/'}: ${error.message}`);
        }
      }
    }
  }

  /** True for mkisofs's holding folder of deep directories when all it holds is shown elsewhere (RE entries). */
  private async onlyRelocated(dir: DirRecord): Promise<boolean> {
    if (this.mode !== 'rockridge') return false;
    for (const rec of await this.directory(dir)) {
      if (rec.ident.length === 1 && rec.ident[0]! <= 1) continue;
      const rr = await parseSusp(rec.systemUse, this.reader, this.base, this.vol.blockSize, this.skip);
      if (!rr.relocated) return false;
    }
    return true;
  }

  /** The "." record at the start of a relocated directory gives its size. */
  private async relocated(block: number): Promise<DirRecord> {
    const head = await this.reader.readExact(this.base + block * this.vol.blockSize, 256);
    const dot = parseRecord(head, 0);
    if (!dot || dot.extent !== block) throw new FormatError(`relocated directory at block ${block} has no "." record`);
    return dot;
  }

  private async *content(extents: DirRecord[], path: string): AsyncGenerator<Buffer> {
    for (const rec of extents) {
      const start = this.base + rec.extent * this.vol.blockSize;
      const end = start + rec.size;
      if (end > this.reader.size) throw new FormatError(`${path}: data past the end of the image`);
      for (let at = start; at < end; at += 1024 * 1024) yield await this.reader.readExact(at, Math.min(1024 * 1024, end - at));
    }
  }
}

function stripVersion(name: string): string {
  const semi = name.lastIndexOf(';');
  let out = semi >= 0 ? name.slice(0, semi) : name;
  if (out.endsWith('.')) out = out.slice(0, -1);
  return out;
}

async function extract(reader: Reader, chunk: ChunkInfo, sink: Sink): Promise<void> {
  const vol = await readVolume(reader, chunk.start);
  if (!vol) throw new FormatError('ISO 9660 primary volume descriptor no longer valid');
  if (chunk.meta?.truncated) sink.problem('error', `ISO 9660 image truncated: ${chunk.meta.truncated}`, chunk.start);
  // Rock Ridge announces itself with an SP entry in the root's "." record.
  const rootDot = parseRecord(await reader.readExact(chunk.start + vol.root.extent * vol.blockSize, 256), 0);
  const rr = rootDot ? await parseSusp(rootDot.systemUse, reader, chunk.start, vol.blockSize) : {};
  const mode: NameMode = rr.hasSp ? 'rockridge' : vol.joliet ? 'joliet' : 'iso';
  await new IsoReader(reader, chunk.start, vol, mode, rr.skip ?? 0, sink).walk();
  if (vol.bootCatalog !== undefined) {
    const limit = Math.min(chunk.end, reader.size);
    for (const boot of await bootImages(reader, chunk.start, vol.bootCatalog, limit)) {
      await sink.copy(`[BOOT]/${boot.name}`, reader, boot.offset, boot.offset + boot.size, {
        meta: { elTorito: true, platform: boot.platform, emulation: boot.emulation },
      });
    }
  }
}

export const iso9660Handler: Handler = {
  id: 'iso9660',
  kind: 'filesystem',
  doc: {
    title: 'ISO 9660 image (with Rock Ridge and Joliet extensions)',
    references: ['ECMA-119', 'IEEE P1282 RRIP 1.12 and SUSP 1.12', 'Joliet specification (Microsoft, 1995)', 'El Torito Bootable CD-ROM Format Specification 1.0'],
    limitations: ['El Torito no-emulation images without a FAT or MBR header are cut at the catalog\'s load size', 'UDF-only and hybrid UDF structures are not read'],
  },
  magics: [{ bytes: Buffer.from('CD001'), offset: DESCRIPTORS_AT + 1 }],
  async chunk(reader, start) {
    const vol = await readVolume(reader, start);
    if (!vol) return null;
    const size = vol.blocks * vol.blockSize;
    const meta: Record<string, unknown> = { label: vol.label, blockSize: vol.blockSize, joliet: Boolean(vol.joliet) };
    if (start + size > reader.size) {
      meta.truncated = `${size} bytes declared, ${reader.size - start} present`;
      return { start, end: reader.size, meta };
    }
    return { start, end: start + size, meta };
  },
  extract,
};
