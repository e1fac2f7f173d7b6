// FAT12, FAT16 and FAT32: the boot sector's BIOS parameter block gives the geometry and the chunk size
// (total sectors × sector size); files and directories are cluster chains in the allocation table.
// Written from Microsoft's FAT specification (fatgen103) and Linux fs/fat (inode.c, fatent.c).
import { FormatError } from '../../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import { struct } from '../../struct.js';
import { ATTR, parseDirectory } from './dir.js';

const Bpb = struct('le', {
  jump: 'bytes[3]',
  oem: 'char[8]',
  bytesPerSector: 'u16',
  sectorsPerCluster: 'u8',
  reservedSectors: 'u16',
  numFats: 'u8',
  rootEntries: 'u16',
  totalSectors16: 'u16',
  media: 'u8',
  fatSize16: 'u16',
  sectorsPerTrack: 'u16',
  heads: 'u16',
  hiddenSectors: 'u32',
  totalSectors32: 'u32',
  fatSize32: 'u32',
  extFlags: 'u16',
  fsVersion: 'u16',
  rootCluster: 'u32',
});

/** Largest directory FAT allows (65536 entries of 32 bytes). */
const MAX_DIR_BYTES = 65536 * 32;
const STREAM_CHUNK = 1024 * 1024;

interface FatGeometry {
  type: 12 | 16 | 32;
  bytesPerSector: number;
  clusterSize: number;
  fatOffset: number;
  rootOffset: number;
  rootBytes: number;
  rootCluster: number;
  dataOffset: number;
  clusterCount: number;
  totalBytes: number;
  label?: string;
}

function parseBootSector(raw: Buffer): FatGeometry | null {
  if (raw.length < 512 || raw[510] !== 0x55 || raw[511] !== 0xaa) return null;
  if (!(raw[0] === 0xeb && raw[2] === 0x90) && raw[0] !== 0xe9 && raw[0] !== 0xeb) return null;
  const b = Bpb.parse(raw);
  const power2 = (n: number) => n > 0 && (n & (n - 1)) === 0;
  if (![512, 1024, 2048, 4096].includes(b.bytesPerSector) || !power2(b.sectorsPerCluster)) return null;
  if (b.reservedSectors === 0 || b.numFats === 0 || b.numFats > 4 || (b.media < 0xf8 && b.media !== 0xf0)) return null;
  const fat32 = b.fatSize16 === 0 && b.rootEntries === 0;
  const fatSectors = fat32 ? b.fatSize32 : b.fatSize16;
  const totalSectors = b.totalSectors16 || b.totalSectors32;
  if (fatSectors === 0 || totalSectors === 0) return null;
  const bps = b.bytesPerSector;
  const rootBytes = fat32 ? 0 : Math.ceil((b.rootEntries * 32) / bps) * bps;
  const fatOffset = b.reservedSectors * bps;
  const rootOffset = fatOffset + b.numFats * fatSectors * bps;
  const dataOffset = rootOffset + rootBytes;
  const totalBytes = totalSectors * bps;
  if (dataOffset >= totalBytes) return null;
  const clusterSize = b.sectorsPerCluster * bps;
  const clusterCount = Math.floor((totalBytes - dataOffset) / clusterSize);
  // The kernel's rule: FAT32 by its BPB shape, otherwise FAT12 below 4085 clusters.
  const type = fat32 ? 32 : clusterCount < 4085 ? 12 : 16;
  // The table must be able to describe every cluster.
  if (fatSectors * bps * 8 < (clusterCount + 2) * type) return null;
  const labelAt = fat32 ? 71 : 43;
  const label = raw[fat32 ? 66 : 38] === 0x29 ? raw.subarray(labelAt, labelAt + 11).toString('latin1').trimEnd() : undefined;
  return { type, bytesPerSector: bps, clusterSize, fatOffset, rootOffset, rootBytes, rootCluster: fat32 ? b.rootCluster : 0, dataOffset, clusterCount, totalBytes, label };
}

class FatVolume {
  constructor(
    readonly reader: Reader,
    readonly base: number,
    readonly geo: FatGeometry,
    readonly limit: number,
  ) {}

  /** The FAT entry of `cluster`, from the first table. */
  async next(cluster: number): Promise<number> {
    const { type, fatOffset } = this.geo;
    const at = this.base + fatOffset + Math.floor((cluster * type) / 8);
    const raw = await this.reader.readExact(at, type === 32 ? 4 : 2);
    if (type === 32) return raw.readUInt32LE(0) & 0x0fffffff;
    if (type === 16) return raw.readUInt16LE(0);
    const v = raw.readUInt16LE(0);
    return cluster & 1 ? v >> 4 : v & 0xfff;
  }

  isEnd(value: number): boolean {
    return value >= (this.geo.type === 32 ? 0x0ffffff8 : this.geo.type === 16 ? 0xfff8 : 0xff8);
  }

  /** Follows a chain from `first` for at most `max` clusters; stops at its end, a loop or a bad link. */
  async chain(first: number, max: number): Promise<{ clusters: number[]; problem?: string }> {
    const clusters: number[] = [];
    const seen = new Set<number>();
    let cluster = first;
    while (clusters.length < max) {
      if (cluster < 2 || cluster >= this.geo.clusterCount + 2) return { clusters, problem: `cluster ${cluster} out of range` };
      if (seen.has(cluster)) return { clusters, problem: `cluster chain loops back to ${cluster}` };
      seen.add(cluster);
      clusters.push(cluster);
      const value = await this.next(cluster);
      if (this.isEnd(value)) return { clusters };
      cluster = value;
    }
    return { clusters };
  }

  clusterOffset(cluster: number): number {
    return this.base + this.geo.dataOffset + (cluster - 2) * this.geo.clusterSize;
  }

  async readClusters(clusters: number[]): Promise<Buffer> {
    const parts: Buffer[] = [];
    for (const c of clusters) parts.push(await this.reader.readExact(this.clusterOffset(c), this.geo.clusterSize));
    return Buffer.concat(parts);
  }
}

async function readGeometry(reader: Reader, start: number): Promise<FatGeometry | null> {
  return parseBootSector(await reader.read(start, 512));
}

async function extract(reader: Reader, chunk: ChunkInfo, sink: Sink): Promise<void> {
  const geo = await readGeometry(reader, chunk.start);
  if (!geo) throw new FormatError('FAT boot sector no longer valid');
  if (chunk.meta?.truncated) sink.problem('error', `FAT image truncated: ${chunk.meta.truncated}`, chunk.start);
  const vol = new FatVolume(reader, chunk.start, geo, Math.min(chunk.end, reader.size));
  const visited = new Set<number>();
  const stack: Array<{ path: string; cluster: number }> = [{ path: '', cluster: geo.rootCluster }];
  while (stack.length) {
    if (sink.signal.aborted) throw sink.signal.reason;
    const { path: dirPath, cluster } = stack.pop()!;
    let data: Buffer;
    try {
      if (cluster === 0 && geo.type !== 32) data = await reader.readExact(chunk.start + geo.rootOffset, geo.rootBytes);
      else {
        const { clusters, problem } = await vol.chain(cluster, Math.ceil(MAX_DIR_BYTES / geo.clusterSize));
        if (problem) sink.problem('error', `FAT: directory ${dirPath || '/'}: ${problem}`);
        data = await vol.readClusters(clusters);
      }
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      sink.problem('error', `FAT: directory ${dirPath || '/'}: ${error.message}`);
      continue;
    }
    for (const e of parseDirectory(data, geo.type === 32)) {
      if (e.name.includes('/') || e.name.includes('\0')) {
        sink.problem('error', `FAT: bad name ${JSON.stringify(e.name)} in ${dirPath || '/'}`);
        continue;
      }
      const path = dirPath ? `${dirPath}/${e.name}` : e.name;
      const meta = { mtime: e.mtime, meta: { attributes: e.attr } };
      try {
        if (e.attr & ATTR.DIRECTORY) {
          if (e.cluster === 0 || visited.has(e.cluster) || e.cluster === geo.rootCluster) {
            sink.problem('error', `FAT: directory loop or bad start cluster at ${path}`);
            continue;
          }
          visited.add(e.cluster);
          await sink.dir(path, meta);
          stack.push({ path, cluster: e.cluster });
        } else await writeFile(vol, e.cluster, e.size, path, meta, sink);
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        sink.problem('error', `FAT: ${path}: ${error.message}`);
      }
    }
  }
}

async function writeFile(vol: FatVolume, first: number, size: number, path: string, meta: object, sink: Sink): Promise<void> {
  if (size === 0) {
    await sink.file(path, Buffer.alloc(0), meta);
    return;
  }
  const need = Math.ceil(size / vol.geo.clusterSize);
  const { clusters, problem } = await vol.chain(first, need);
  let length = size;
  if (problem || clusters.length < need) {
    length = Math.min(size, clusters.length * vol.geo.clusterSize);
    sink.problem('error', `FAT: ${path}: ${problem ?? 'cluster chain ends early'}; kept ${length} of ${size} bytes`);
  }
  async function* content(): AsyncGenerator<Buffer> {
    let left = length;
    // Merge consecutive clusters into larger reads.
    for (let i = 0; i < clusters.length && left > 0; ) {
      let j = i + 1;
      while (j < clusters.length && clusters[j] === clusters[j - 1]! + 1 && (j - i) * vol.geo.clusterSize < STREAM_CHUNK) j++;
      const n = Math.min(left, (j - i) * vol.geo.clusterSize);
      const at = vol.clusterOffset(clusters[i]!);
      if (at + n > vol.limit) throw new FormatError(`${path}: data past the end of the image`);
      yield await vol.reader.readExact(at, n);
      left -= n;
      i = j;
    }
  }
  await sink.file(path, content(), meta);
}

export const fatHandler: Handler = {
  id: 'fat',
  kind: 'filesystem',
  doc: {
    title: 'FAT12 / FAT16 / FAT32 filesystem (with VFAT long names)',
    references: ['Microsoft FAT specification (fatgen103)', 'Linux fs/fat (inode.c, dir.c, fatent.c)'],
    limitations: ['exFAT is a different format and not handled', 'Short names are read as Latin-1, not the volume\'s OEM code page'],
  },
  // The file-system type strings mkfs tools write; the boot sector itself is validated in chunk().
  magics: [
    { bytes: Buffer.from('FAT12   '), offset: 54 },
    { bytes: Buffer.from('FAT16   '), offset: 54 },
    { bytes: Buffer.from('FAT32   '), offset: 82 },
  ],
  async chunk(reader, start) {
    const geo = await readGeometry(reader, start);
    if (!geo) return null;
    const meta: Record<string, unknown> = { type: `fat${geo.type}`, clusterSize: geo.clusterSize, label: geo.label };
    const end = start + geo.totalBytes;
    if (end > reader.size) {
      if (start + geo.dataOffset > reader.size) throw new FormatError('FAT image truncated before its data area');
      meta.truncated = `${geo.totalBytes} bytes declared, ${reader.size - start} present`;
      return { start, end: reader.size, meta };
    }
    return { start, end, meta };
  },
  extract,
};
