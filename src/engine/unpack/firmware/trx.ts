// Broadcom TRX (used by Linksys, Asus, Netgear and OpenWrt brcm47xx/bcm53xx images): a little-endian header
// 'HDR0', total length, CRC32 over everything after the CRC field, flags/version, and 3 (v1) or 4 (v2)
// partition offsets relative to the header (loader/kernel, rootfs, ...). The CRC is the Ethernet CRC32 without
// the final inversion, i.e. the bitwise complement of the standard CRC.
import { FormatError } from '../../format-error.js';
import type { ChunkContext, ChunkInfo, Handler, Reader, Sink } from '../handler.js';
import { struct } from '../struct.js';
import { crc32Range, payloadExtension } from './common.js';

const Header = struct('le', {
  magic: 'u32',
  length: 'u32',
  crc: 'u32',
  flags: 'u16',
  version: 'u16',
  offset0: 'u32',
  offset1: 'u32',
  offset2: 'u32',
});
const V2_EXTRA = 4; // version 2 adds a fourth offset

type TrxMeta = {
  version: number;
  flags: number;
  headerSize: number;
  /** [start, end) of each partition, relative to the chunk start. */
  partitions: Array<[number, number]>;
};

async function chunk(reader: Reader, start: number, ctx?: ChunkContext): Promise<ChunkInfo<TrxMeta> | null> {
  const raw = await reader.read(start, Header.size + V2_EXTRA);
  if (raw.length < Header.size) return null;
  const h = Header.parse(raw);
  if (h.version !== 1 && h.version !== 2) return null;
  const headerSize = Header.size + (h.version === 2 ? V2_EXTRA : 0);
  if (h.length < headerSize) return null;
  const offsets = [h.offset0, h.offset1, h.offset2];
  if (h.version === 2) {
    if (raw.length < headerSize) return null;
    offsets.push(raw.readUInt32LE(Header.size));
  }
  const used = offsets.filter((o) => o !== 0);
  // Offsets must rise, start after the header and stay inside the image: anything else is not a TRX.
  if (used.some((o, i) => o < headerSize || o >= h.length || (i > 0 && o <= used[i - 1]!))) return null;
  const end = start + h.length;
  if (end > reader.size) throw new FormatError(`TRX: truncated, length ${h.length} runs past the file (${reader.size})`);
  const crc = (~(await crc32Range(reader, start + Header.offsetOf('flags'), end, ctx?.signal))) >>> 0;
  if (crc !== h.crc) throw new FormatError('TRX: CRC32 mismatch');
  const partitions = used.map((o, i): [number, number] => [o, used[i + 1] ?? h.length]);
  const meta: TrxMeta = { version: h.version, flags: h.flags, headerSize, partitions };
  return { start, end, meta };
}

async function extract(reader: Reader, info: ChunkInfo<TrxMeta>, sink: Sink): Promise<void> {
  const meta = info.meta!;
  for (const [i, [from, to]] of meta.partitions.entries()) {
    const ext = payloadExtension(await reader.read(info.start + from, 16));
    await sink.copy(`partition-${i}${ext ? `.${ext}` : ''}`, reader, info.start + from, info.start + to, {
      meta: { partition: i, offset: from },
    });
  }
}

export const trxHandler: Handler<TrxMeta> = {
  id: 'trx',
  kind: 'firmware',
  doc: {
    title: 'Broadcom TRX firmware container',
    references: ['OpenWrt tools/firmware-utils/src/trx.c and otrx.c', 'unblob handlers/archive/trx (dlink/netgear)'],
  },
  magics: [{ bytes: Buffer.from('HDR0') }],
  confidence: 80,
  chunk,
  extract,
};
