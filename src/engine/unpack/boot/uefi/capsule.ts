// UEFI capsules (UEFI spec 8.5.3 and 23.3): EFI_CAPSULE_HEADER (GUID, header size, flags, total size) around
// a body. The body of an EFI capsule is a firmware volume; of an AMI Aptio capsule, a ROM image at the offset
// its extended header gives; of an FMP capsule, embedded drivers and payloads (each with an image header, and
// an optional PKCS#7 authentication in front of the image), which are written one by one.
import { FormatError } from '../../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import { struct } from '../../struct.js';
import { guidBytes, guidString } from './guid.js';

const CapsuleHeader = struct('le', { guid: 'bytes[16]', headerSize: 'u32', flags: 'u32', imageSize: 'u32' });
const FmpHeader = struct('le', { version: 'u32', drivers: 'u16', payloads: 'u16' });
const ImageHeader = struct('le', { version: 'u32', typeId: 'bytes[16]', index: 'u8', reserved: 'bytes[3]', imageSize: 'u32', vendorCodeSize: 'u32' });
const CAPSULES: Record<string, string> = {
  '3B6686BD-0D76-4030-B70E-B5519E2FC5A0': 'efi',
  '6DCBD5ED-E82D-4C44-BDA1-7194199AD92A': 'fmp',
  '4A3CA68B-7723-48FB-803D-578CC1FEC44D': 'aptio',
  '14EEBB90-890A-43DB-AED1-5D3C4588A418': 'aptio-signed',
};
const PKCS7 = '4AAFD29D-68DF-49EE-8AA9-347D375665A7';
const MAX_ITEMS = 256;

type CapsuleMeta = {
  kind: string;
  guid: string;
  flags: number;
  bodyStart: number;
};

async function chunk(reader: Reader, start: number): Promise<ChunkInfo<CapsuleMeta> | null> {
  const raw = await reader.read(start, CapsuleHeader.size + 4);
  if (raw.length < CapsuleHeader.size + 4) return null;
  const h = CapsuleHeader.parse(raw);
  const guid = guidString(h.guid);
  const kind = CAPSULES[guid];
  if (!kind || h.headerSize < CapsuleHeader.size || h.headerSize > h.imageSize || h.headerSize > 0x10000) return null;
  // Only the flag bits the spec defines (0..15 are capsule specific, 16..18 defined).
  if (h.flags & 0xfff80000) return null;
  const end = start + h.imageSize;
  if (end > reader.size) throw new FormatError(`capsule: truncated, ${h.imageSize} bytes declared, file ends at ${reader.size}`);
  let bodyStart = h.headerSize;
  if (kind.startsWith('aptio')) {
    bodyStart = raw.readUInt16LE(CapsuleHeader.size); // RomImageOffset
    if (bodyStart < CapsuleHeader.size + 4 || bodyStart > h.imageSize) throw new FormatError('capsule: AMI ROM image offset out of range');
  }
  const meta: CapsuleMeta = { kind, guid, flags: h.flags, bodyStart };
  return { start, end, meta };
}

async function extractFmp(reader: Reader, from: number, to: number, sink: Sink): Promise<void> {
  const h = FmpHeader.parse(await reader.readExact(from, FmpHeader.size));
  const count = h.drivers + h.payloads;
  if (h.version !== 1 || count > MAX_ITEMS) throw new FormatError(`FMP capsule: unsupported header (version ${h.version}, ${count} items)`);
  const table = await reader.readExact(from + FmpHeader.size, count * 8);
  const offsets = Array.from({ length: count }, (_, i) => Number(table.readBigUInt64LE(i * 8)));
  if (offsets.some((o) => from + o > to)) throw new FormatError('FMP capsule: item offset out of range');
  for (let i = 0; i < h.drivers; i++) {
    await sink.copy(`driver-${i}.efi`, reader, from + offsets[i]!, from + (offsets[i + 1] ?? to - from), { meta: { capsuleItem: 'driver' } });
  }
  for (let p = 0; p < h.payloads; p++) {
    const at = from + offsets[h.drivers + p]!;
    const image = ImageHeader.parse(await reader.readExact(at, ImageHeader.size));
    const headerSize = image.version >= 3 ? 48 : image.version === 2 ? 40 : 32;
    const dataStart = at + headerSize;
    if (image.version < 1 || image.version > 3 || dataStart + image.imageSize + image.vendorCodeSize > to) {
      throw new FormatError(`FMP capsule: payload ${p} header out of range`);
    }
    const typeId = guidString(image.typeId);
    const dir = `payload-${p}_${typeId}`;
    const meta = { capsuleItem: 'payload', updateImageTypeId: typeId, updateImageIndex: image.index };
    let imageStart = dataStart;
    // EFI_FIRMWARE_IMAGE_AUTHENTICATION: monotonic count + WIN_CERTIFICATE_UEFI_GUID with a PKCS#7 signature.
    const auth = await reader.read(dataStart, 32);
    if (auth.length === 32 && auth.readUInt16LE(12) === 0x0200 && auth.readUInt16LE(14) === 0x0ef1 && guidString(auth, 16) === PKCS7) {
      const certLength = auth.readUInt32LE(8);
      if (certLength < 24 || 8 + certLength > image.imageSize) throw new FormatError(`FMP capsule: payload ${p} authentication out of range`);
      await sink.copy(`${dir}/signature.p7`, reader, dataStart + 32, dataStart + 8 + certLength, { meta: { ...meta, monotonicCount: Number(auth.readBigUInt64LE(0)) } });
      imageStart = dataStart + 8 + certLength;
    }
    await sink.copy(`${dir}/image.bin`, reader, imageStart, dataStart + image.imageSize, { meta });
    if (image.vendorCodeSize) {
      await sink.copy(`${dir}/vendor-code.bin`, reader, dataStart + image.imageSize, dataStart + image.imageSize + image.vendorCodeSize, { meta });
    }
  }
}

async function extract(reader: Reader, info: ChunkInfo<CapsuleMeta>, sink: Sink): Promise<void> {
  const meta = info.meta!;
  const from = info.start + meta.bodyStart;
  if (meta.kind === 'fmp') await extractFmp(reader, from, info.end, sink);
  else await sink.copy(meta.kind === 'efi' ? 'body.fv' : 'rom.bin', reader, from, info.end, { meta: { capsule: meta.kind } });
}

export const uefiCapsuleHandler: Handler<CapsuleMeta> = {
  id: 'uefi-capsule',
  kind: 'boot',
  doc: {
    title: 'UEFI capsule (EFI, FMP, AMI Aptio)',
    references: ['UEFI specification 8.5.3 (EFI_CAPSULE_HEADER) and 23.3 (FMP capsules)', 'EDK II MdePkg/Include/Guid/FmpCapsule.h', 'UEFITool ffsparser (Aptio capsules)'],
    limitations: ['Capsule signatures are extracted, not verified'],
  },
  magics: Object.keys(CAPSULES).map((guid) => ({ bytes: guidBytes(guid) })),
  confidence: 80,
  chunk,
  extract,
};
