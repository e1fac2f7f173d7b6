// UBI (Unsorted Block Images): physical eraseblocks each start with an erase-counter header and, when mapped,
// a volume-id header naming the volume and logical eraseblock they hold. The volume table (in the layout
// volume) names the volumes. Extraction writes one file per volume, its LEBs in order (unmapped ones as 0xFF),
// which the driver then unpacks further (usually UBIFS). Written from Linux include/uapi/mtd/ubi-media.h.
import zlib from 'node:zlib';
import { FormatError } from '../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../handler.js';
import { struct } from '../struct.js';

const EC_MAGIC = 0x55424923; // "UBI#"
const VID_MAGIC = 0x55424921; // "UBI!"
const LAYOUT_VOLUME_ID = 0x7fffefff;
const VTBL_RECORD_SIZE = 172;
const MAX_VOLUMES = 128;
const STATIC_VOLUME = 2;
const MIN_PEB = 4 * 1024;
const MAX_PEB = 4 * 1024 * 1024;

const EcHeader = struct('be', {
  magic: 'u32',
  version: 'u8',
  padding1: 'bytes[3]',
  ec: 'u64',
  vidHdrOffset: 'u32',
  dataOffset: 'u32',
  imageSeq: 'u32',
  padding2: 'bytes[32]',
  hdrCrc: 'u32',
});

const VidHeader = struct('be', {
  magic: 'u32',
  version: 'u8',
  volType: 'u8',
  copyFlag: 'u8',
  compat: 'u8',
  volId: 'u32',
  lnum: 'u32',
  padding1: 'bytes[4]',
  dataSize: 'u32',
  usedEbs: 'u32',
  dataPad: 'u32',
  dataCrc: 'u32',
  padding2: 'bytes[4]',
  sqnum: 'u64',
  padding3: 'bytes[12]',
  hdrCrc: 'u32',
});

const VtblRecord = struct('be', {
  reservedPebs: 'u32',
  alignment: 'u32',
  dataPad: 'u32',
  volType: 'u8',
  updMarker: 'u8',
  nameLen: 'u16',
  name: 'char[128]',
  flags: 'u8',
  padding: 'bytes[23]',
  crc: 'u32',
});

/** UBI's CRC-32: the kernel's crc32_le seeded with 0xffffffff and not inverted at the end. */
export function ubiCrc(data: Buffer): number {
  return ~zlib.crc32(data) >>> 0;
}

type Ec = ReturnType<typeof EcHeader.parse>;

function parseEc(raw: Buffer): Ec | null {
  if (raw.length < EcHeader.size) return null;
  const ec = EcHeader.parse(raw);
  if (ec.magic !== EC_MAGIC || ec.version !== 1) return null;
  if (ubiCrc(raw.subarray(0, EcHeader.offsetOf('hdrCrc'))) !== ec.hdrCrc) return null;
  if (ec.vidHdrOffset < EcHeader.size || ec.dataOffset < ec.vidHdrOffset + VidHeader.size) return null;
  return ec;
}

function erased(raw: Buffer): boolean {
  return raw.length > 0 && raw.every((b) => b === 0xff);
}

/** Finds the eraseblock size: the smallest power of two at which the next erase-counter header sits. */
async function findPebSize(reader: Reader, start: number, first: Ec): Promise<number | null> {
  for (let size = MIN_PEB; size <= MAX_PEB; size *= 2) {
    if (size <= first.dataOffset) continue;
    if (start + size + EcHeader.size > reader.size) break;
    const next = parseEc(await reader.read(start + size, EcHeader.size));
    if (next && next.imageSeq === first.imageSeq && next.dataOffset === first.dataOffset) return size;
  }
  return null;
}

type UbiLayout = {
  pebSize: number;
  pebCount: number;
  vidHdrOffset: number;
  dataOffset: number;
};

/** The chunk's metadata: its layout, the image sequence number, and why it is truncated when it is. */
type UbiMeta = UbiLayout & { imageSeq: number; truncated?: string };

function layoutOf(chunk: ChunkInfo<UbiMeta>): UbiLayout {
  const m = chunk.meta!;
  return { pebSize: m.pebSize, pebCount: m.pebCount, vidHdrOffset: m.vidHdrOffset, dataOffset: m.dataOffset };
}

interface Leb {
  peb: number;
  sqnum: number;
  dataSize: number;
  volType: number;
}

interface Volume {
  id: number;
  name: string;
  type: number;
  dataPad: number;
}

async function extract(reader: Reader, chunk: ChunkInfo<UbiMeta>, sink: Sink): Promise<void> {
  const layout = layoutOf(chunk);
  const lebSize = layout.pebSize - layout.dataOffset;
  const maps = new Map<number, Map<number, Leb>>();
  let badHeaders = 0;
  for (let peb = 0; peb < layout.pebCount; peb++) {
    if (sink.signal.aborted) throw sink.signal.reason;
    const at = chunk.start + peb * layout.pebSize;
    const raw = await reader.read(at + layout.vidHdrOffset, VidHeader.size);
    if (raw.length < VidHeader.size || erased(raw)) continue;
    const vid = VidHeader.parse(raw);
    if (vid.magic !== VID_MAGIC || ubiCrc(raw.subarray(0, VidHeader.offsetOf('hdrCrc'))) !== vid.hdrCrc) {
      badHeaders++;
      continue;
    }
    let lebs = maps.get(vid.volId);
    if (!lebs) maps.set(vid.volId, (lebs = new Map()));
    const known = lebs.get(vid.lnum);
    // A LEB copied by wear-levelling exists twice for a while: the higher sequence number is the live one.
    if (!known || vid.sqnum > known.sqnum) lebs.set(vid.lnum, { peb, sqnum: vid.sqnum, dataSize: vid.dataSize, volType: vid.volType });
  }
  if (badHeaders) sink.problem('error', `${badHeaders} eraseblocks with a corrupt volume-id header skipped`, chunk.start);
  if (chunk.meta?.truncated) sink.problem('error', `UBI image truncated: ${chunk.meta.truncated}`, chunk.start);

  const volumes = await volumeTable(reader, chunk, layout, maps.get(LAYOUT_VOLUME_ID), sink);
  for (const volId of maps.keys()) {
    if (volId === LAYOUT_VOLUME_ID || volumes.some((v) => v.id === volId)) continue;
    sink.problem('error', `volume ${volId} has eraseblocks but no volume table record`, chunk.start);
    volumes.push({ id: volId, name: '', type: [...maps.get(volId)!.values()][0]!.volType, dataPad: 0 });
  }
  const used = new Set<string>();
  for (const vol of volumes) {
    const lebs = maps.get(vol.id);
    if (!lebs || lebs.size === 0) continue;
    let name = vol.name.replace(/[/\\\0]/g, '_') || `volume-${vol.id}`;
    if (name === '.' || name === '..' || used.has(name)) name = `${name}-${vol.id}`;
    used.add(name);
    const usable = lebSize - vol.dataPad;
    const last = Math.max(...lebs.keys());
    async function* content(): AsyncGenerator<Buffer> {
      for (let lnum = 0; lnum <= last; lnum++) {
        const leb = lebs!.get(lnum);
        if (!leb) {
          if (vol.type !== STATIC_VOLUME) yield Buffer.alloc(usable, 0xff);
          continue;
        }
        const size = vol.type === STATIC_VOLUME ? Math.min(leb.dataSize, usable) : usable;
        const from = chunk.start + leb.peb * layout.pebSize + layout.dataOffset;
        const data = await reader.read(from, size);
        yield data.length === size ? data : Buffer.concat([data, Buffer.alloc(size - data.length, 0xff)]);
      }
    }
    await sink.file(name, content(), {
      meta: { volumeId: vol.id, volumeType: vol.type === STATIC_VOLUME ? 'static' : 'dynamic', lebSize: usable, lebs: lebs.size },
    });
  }
}

/** Reads the volume table from the layout volume (two copies: the first valid record set wins). */
async function volumeTable(reader: Reader, chunk: ChunkInfo, layout: UbiLayout, lebs: Map<number, Leb> | undefined, sink: Sink): Promise<Volume[]> {
  if (!lebs || lebs.size === 0) {
    sink.problem('error', 'UBI image has no volume table (layout volume missing)', chunk.start);
    return [];
  }
  const lebSize = layout.pebSize - layout.dataOffset;
  const count = Math.min(MAX_VOLUMES, Math.floor(lebSize / VTBL_RECORD_SIZE));
  for (const lnum of [0, 1]) {
    const leb = lebs.get(lnum);
    if (!leb) continue;
    const table = await reader.read(chunk.start + leb.peb * layout.pebSize + layout.dataOffset, count * VTBL_RECORD_SIZE);
    const volumes: Volume[] = [];
    let valid = true;
    for (let i = 0; i < Math.floor(table.length / VTBL_RECORD_SIZE); i++) {
      const raw = table.subarray(i * VTBL_RECORD_SIZE, (i + 1) * VTBL_RECORD_SIZE);
      const rec = VtblRecord.parse(raw);
      if (ubiCrc(raw.subarray(0, VtblRecord.offsetOf('crc'))) !== rec.crc) {
        valid = false;
        break;
      }
      if (rec.reservedPebs === 0) continue;
      const name = raw.subarray(VtblRecord.offsetOf('name'), VtblRecord.offsetOf('name') + Math.min(rec.nameLen, 127)).toString('utf8');
      volumes.push({ id: i, name, type: rec.volType, dataPad: rec.dataPad < lebSize ? rec.dataPad : 0 });
    }
    if (valid) return volumes;
    sink.problem('error', `volume table copy ${lnum} has a bad record CRC`, chunk.start);
  }
  return [];
}

export const ubiHandler: Handler<UbiMeta> = {
  id: 'ubi',
  kind: 'filesystem',
  doc: {
    title: 'UBI (Unsorted Block Images) volume container',
    references: ['Linux include/uapi/mtd/ubi-media.h', 'Linux drivers/mtd/ubi/ (attach, vtbl)', 'ubi_reader'],
    limitations: ['Fastmap is ignored (every eraseblock header is scanned instead)', 'Per-LEB data CRCs of static volumes are not verified'],
  },
  magics: [{ bytes: Buffer.from('UBI#') }],
  async chunk(reader, start) {
    const first = parseEc(await reader.read(start, EcHeader.size));
    if (!first) return null;
    const pebSize = await findPebSize(reader, start, first);
    if (pebSize === null) {
      // One eraseblock cannot hold the two volume-table copies UBI needs.
      if (start + first.dataOffset < reader.size) throw new FormatError('UBI: no second eraseblock header found (eraseblock size unknown)');
      return null;
    }
    // The image runs over consecutive eraseblocks of this image; erased blocks inside it count, trailing ones do not.
    let pebCount = 1;
    for (let n = 1; start + n * pebSize + EcHeader.size <= reader.size; n++) {
      const raw = await reader.read(start + n * pebSize, EcHeader.size);
      const ec = parseEc(raw);
      if (ec) {
        if (ec.imageSeq !== first.imageSeq || ec.vidHdrOffset !== first.vidHdrOffset) break;
        pebCount = n + 1;
      } else if (!erased(raw) && raw.readUInt32BE(0) !== EC_MAGIC) break;
    }
    const meta: UbiMeta = {
      pebSize,
      pebCount,
      vidHdrOffset: first.vidHdrOffset,
      dataOffset: first.dataOffset,
      imageSeq: first.imageSeq,
    };
    let end = start + pebCount * pebSize;
    if (end > reader.size) {
      meta.truncated = `last eraseblock ends at ${end}, file at ${reader.size}`;
      end = reader.size;
    }
    return { start, end, meta };
  },
  extract,
};
