// Intel flash descriptor (SPI flash images of Intel platforms, ICH8 and later): the signature 0x0FF0A55A at
// 0x10, FLMAP0 giving the region section, and up to 16 FLREG entries (base and limit in 4 KiB units) for the
// descriptor, BIOS, ME, GbE, platform data, EC and other regions. The chunk is the whole flash image; each
// used region is written as its own file, where the volume and CBFS handlers take over.
import { FormatError } from '../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../handler.js';

const SIGNATURE = Buffer.from('5aa5f00f', 'hex');
const SIGNATURE_AT = 0x10;
const REGION_NAMES = ['descriptor', 'bios', 'me', 'gbe', 'platform-data', 'device-expansion', 'bios2', 'reserved-7', 'ec',
  'device-expansion-2', 'ie', '10gbe-0', '10gbe-1', 'reserved-13', 'reserved-14', 'ptt'];

interface Region {
  index: number;
  name: string;
  base: number;
  limit: number;
}

async function chunk(reader: Reader, start: number): Promise<ChunkInfo | null> {
  const head = await reader.read(start, 0x20);
  if (head.length < 0x20 || !head.subarray(SIGNATURE_AT, SIGNATURE_AT + 4).equals(SIGNATURE)) return null;
  const flmap0 = head.readUInt32LE(0x14);
  const frba = ((flmap0 >>> 16) & 0xff) << 4;
  if (frba < 0x20 || frba > 0xfc0) return null;
  const table = await reader.read(start + frba, 16 * 4);
  if (table.length < 5 * 4) return null;
  const regions: Region[] = [];
  for (let i = 0; i * 4 + 4 <= table.length; i++) {
    const v = table.readUInt32LE(i * 4);
    const base = (v & 0x7fff) << 12;
    const limit = (((v >>> 16) & 0x7fff) << 12) | 0xfff;
    if (v === 0xffffffff || base > limit || (i > 0 && v === 0)) continue;
    regions.push({ index: i, name: REGION_NAMES[i]!, base, limit });
  }
  const descriptor = regions.find((r) => r.index === 0);
  // The descriptor region always starts the flash: anything else is not a descriptor.
  if (!descriptor || descriptor.base !== 0) return null;
  const sorted = [...regions].sort((a, b) => a.base - b.base);
  if (sorted.some((r, i) => i > 0 && r.base <= sorted[i - 1]!.limit)) throw new FormatError('flash descriptor: regions overlap');
  const end = start + Math.max(...regions.map((r) => r.limit)) + 1;
  if (end > reader.size) throw new FormatError(`flash descriptor: truncated, regions reach ${end - start} bytes, file ends at ${reader.size - start}`);
  return { start, end, meta: { regions } };
}

async function extract(reader: Reader, info: ChunkInfo, sink: Sink): Promise<void> {
  for (const r of info.meta!.regions as Region[]) {
    await sink.copy(`${r.index}-${r.name}.bin`, reader, info.start + r.base, info.start + r.limit + 1, { meta: { region: r.name, base: r.base } });
  }
}

export const intelFlashDescriptorHandler: Handler = {
  id: 'intel-flash-descriptor',
  kind: 'boot',
  doc: {
    title: 'Intel flash descriptor (SPI flash regions)',
    references: ['Intel PCH datasheets (SPI flash descriptor)', 'coreboot util/ifdtool', 'UEFITool descriptor parser'],
    limitations: ['ICH8-era descriptors with the signature at offset 0 are not recognised'],
  },
  magics: [{ bytes: SIGNATURE, offset: SIGNATURE_AT }],
  confidence: 85,
  chunk,
  extract,
};
