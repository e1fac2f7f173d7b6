// TP-Link firmware headers (mktplinkfw, mktplinkfw2): a 512-byte big-endian header with a firmware version string,
// hardware id, an MD5 over the image (computed with the MD5 field replaced by a fixed salt), load/entry addresses,
// and the offsets and lengths of the kernel, root filesystem and optional bootloader.
// - v1 starts with version 1 and the vendor string 'TP-LINK Technologies'; its length field is the image's length.
// - v2 (newer Lantiq/MediaTek devices; v3 is the same layout, RSA-signed) has no vendor string: a 48-byte version
//   string, the fields moved up, fixed markers 0x55AA and 0xA5 before the software version, other MD5 salts, and a
//   length field that is the flash layout's maximum: an image built with stripped padding ends after its rootfs.
// Images that carry a bootloader put the bootloader right after the header and the ordinary firmware (with its
// own header) after it; their outer header's kernel/rootfs fields describe that inner firmware.
import { createHash } from 'node:crypto';
import { FormatError } from '../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../handler.js';
import { struct } from '../struct.js';
import { hashRange, payloadExtension } from './common.js';

// The fields both layouts have, in the same order (v2 moves them up by 0x14 bytes).
const SHARED_FIELDS = {
  md5: 'bytes[16]',
  unk2: 'u32',
  md5b: 'bytes[16]',
  unk3: 'u32',
  kernelLoad: 'u32',
  kernelEntry: 'u32',
  fwLength: 'u32',
  kernelOffset: 'u32',
  kernelLength: 'u32',
  rootfsOffset: 'u32',
  rootfsLength: 'u32',
  bootOffset: 'u32',
  bootLength: 'u32',
} as const;
const HeaderV1 = struct('be', {
  version: 'u32',
  vendor: 'char[24]',
  fwVersion: 'char[36]',
  hwId: 'u32',
  hwRev: 'u32',
  region: 'u32',
  ...SHARED_FIELDS,
  verHi: 'u16',
  verMid: 'u16',
  verLo: 'u16',
});
const HeaderV2 = struct('be', {
  version: 'u32',
  fwVersion: 'char[48]',
  hwId: 'u32',
  hwRev: 'u32',
  hwVerAdd: 'u32',
  ...SHARED_FIELDS,
  marker: 'u16',
  sverHi: 'u8',
  sverLo: 'u8',
  marker2: 'u8',
  verHi: 'u8',
  verMid: 'u8',
  verLo: 'u8',
});
const HEADER_SIZE = 0x200;
const VENDOR = Buffer.from('TP-LINK Technologies');
const V2_MARKER = 0x55aa;
const V2_MARKER2 = 0xa5;
/** How mktplinkfw2 writes header versions 2 and 3 (byte-swapped, then big-endian): 02 00 00 00. */
const V2_VERSIONS = [0x02000000, 0x03000000];
// The salts mktplinkfw and mktplinkfw2 put in place of the MD5 while hashing (the second of each pair for images
// with a bootloader). The v2 tool's differ from v1's in a few bytes.
const SALTS_V1 = [Buffer.from('dcd73aa5c39598fbddf9e7f40eae4738', 'hex'), Buffer.from('8cef335bd5c5cefaa79c28dab2e90f42', 'hex')] as const;
const SALTS_V2 = [Buffer.from('dcd73aa5c39598fbdcf9e7f40eae4737', 'hex'), Buffer.from('8cef335fd5c5cefaac9c28dab2e90f42', 'hex')] as const;

/** The fields both header layouts share, read from either. */
interface Header {
  headerVersion: number;
  vendor?: string;
  fwVersion: string;
  version: string;
  hwId: number;
  hwRev: number;
  kernelLoad: number;
  kernelEntry: number;
  fwLength: number;
  md5: Buffer;
  md5At: number;
  kernel: [number, number];
  rootfs: [number, number];
  bootLength: number;
  salts: readonly [Buffer, Buffer];
}

function readHeader(raw: Buffer): Header | null {
  if (raw.length < HeaderV1.size) return null;
  const version = raw.readUInt32BE(0);
  if ((version === 1 || version === 0x01000000) && raw.subarray(4, 4 + VENDOR.length).equals(VENDOR)) {
    const h = HeaderV1.parse(raw);
    return {
      ...h, headerVersion: 1, version: `${h.verHi}.${h.verMid}.${h.verLo}`, md5At: HeaderV1.offsetOf('md5'), salts: SALTS_V1,
      kernel: [h.kernelOffset, h.kernelLength], rootfs: [h.rootfsOffset, h.rootfsLength],
    };
  }
  if (!V2_VERSIONS.includes(version)) return null;
  const h = HeaderV2.parse(raw);
  if (h.marker !== V2_MARKER || h.marker2 !== V2_MARKER2) return null;
  return {
    ...h, headerVersion: version >>> 24, version: `${h.verHi}.${h.verMid}.${h.verLo}-${h.sverHi}.${h.sverLo}`, md5At: HeaderV2.offsetOf('md5'),
    salts: SALTS_V2, kernel: [h.kernelOffset, h.kernelLength], rootfs: [h.rootfsOffset, h.rootfsLength],
  };
}

type TplinkMeta = {
  headerVersion: number;
  vendor?: string;
  fwVersion: string;
  version: string;
  hwId: string;
  hwRev: number;
  kernelLoad: number;
  kernelEntry: number;
  md5: 'valid' | 'mismatch';
  kernel: [number, number];
  rootfs: [number, number];
  boot: [number, number];
};

async function md5Matches(reader: Reader, start: number, end: number, h: Header): Promise<boolean> {
  const hash = createHash('md5');
  const header = Buffer.from(await reader.readExact(start, HEADER_SIZE));
  h.salts[h.bootLength ? 1 : 0].copy(header, h.md5At);
  hash.update(header);
  await hashRange(reader, hash, start + HEADER_SIZE, end);
  return hash.digest().equals(h.md5);
}

function region([offset, length]: [number, number], total: number, what: string): [number, number] {
  if (length === 0) return [0, 0];
  if (offset < HEADER_SIZE || offset > total) throw new FormatError(`TP-Link: ${what} offset ${offset} outside the image`);
  return [offset, Math.min(offset + length, total)];
}

const JFFS2_EOF = Buffer.from('deadc0de', 'hex');

/**
 * Where an image built with `mktplinkfw2 -s -j` ends: after the rootfs, the tool writes JFFS2 end-of-filesystem marks
 * at the next 4 KiB and 64 KiB boundaries (mktplinkfw-lib.c pad_jffs2), as long as they fit the length field.
 */
function jffs2EofEnd(end: number, max: number): number {
  let len = end;
  let pending = [0x1000, 0x10000];
  while (len < max && pending.length > 0) {
    len = Math.ceil(len / pending[0]!) * pending[0]!;
    pending = pending.filter((mask) => len % mask !== 0);
    len += JFFS2_EOF.length;
  }
  return len;
}

/**
 * The image's length and whether its MD5 holds. v1: the length field. v2: the length field is the flash layout's
 * maximum, so the image may end right after its payloads (padding stripped, perhaps with JFFS2 end marks): the
 * first length the MD5 confirms.
 */
async function imageLength(reader: Reader, start: number, h: Header): Promise<{ length: number; valid: boolean }> {
  const available = reader.size - start;
  if (h.headerVersion === 1) {
    if (h.fwLength > available) throw new FormatError(`TP-Link: truncated, firmware length ${h.fwLength} runs past the file (${reader.size})`);
    return { length: h.fwLength, valid: await md5Matches(reader, start, start + h.fwLength, h) };
  }
  const payloadEnd = h.bootLength ? HEADER_SIZE + h.bootLength : Math.max(HEADER_SIZE, h.kernel[0] + h.kernel[1], h.rootfs[0] + h.rootfs[1]);
  if (payloadEnd > h.fwLength) throw new FormatError(`TP-Link: payloads end at ${payloadEnd}, past the firmware length ${h.fwLength}`);
  if (payloadEnd > available) throw new FormatError(`TP-Link: truncated, payloads end at ${payloadEnd}, past the file (${reader.size})`);
  const jffs2 = jffs2EofEnd(payloadEnd, h.fwLength);
  const marked = jffs2 <= available && (await reader.read(start + jffs2 - 4, 4)).equals(JFFS2_EOF);
  const lengths = [...new Set([h.fwLength, payloadEnd, ...(marked ? [jffs2] : []), available])].filter((n) => n <= available);
  for (const length of lengths) if (await md5Matches(reader, start, start + length, h)) return { length, valid: true };
  return { length: Math.min(h.fwLength, available), valid: false };
}

async function chunk(reader: Reader, start: number): Promise<ChunkInfo<TplinkMeta> | null> {
  const h = readHeader(await reader.read(start, HEADER_SIZE));
  if (!h) return null;
  if (h.fwLength < HEADER_SIZE) throw new FormatError(`TP-Link: firmware length ${h.fwLength} is shorter than the header`);
  const boot: [number, number] = h.bootLength ? [HEADER_SIZE, HEADER_SIZE + h.bootLength] : [0, 0];
  if (boot[1] > h.fwLength) throw new FormatError('TP-Link: bootloader runs past the image');
  const { length, valid } = await imageLength(reader, start, h);
  const meta: TplinkMeta = {
    headerVersion: h.headerVersion,
    vendor: h.vendor,
    fwVersion: h.fwVersion,
    version: h.version,
    hwId: h.hwId.toString(16).padStart(8, '0'),
    hwRev: h.hwRev,
    kernelLoad: h.kernelLoad,
    kernelEntry: h.kernelEntry,
    md5: valid ? 'valid' : 'mismatch',
    boot,
    // With a bootloader these describe the inner firmware; they are only used without one.
    kernel: h.bootLength ? [0, 0] : region(h.kernel, length, 'kernel'),
    rootfs: h.bootLength ? [0, 0] : region(h.rootfs, length, 'rootfs'),
  };
  return { start, end: start + length, meta };
}

/** The inner firmware after a bootloader: the next 512-aligned TP-Link header (v1 or v2), if any. */
async function innerHeader(reader: Reader, info: ChunkInfo, from: number): Promise<number | undefined> {
  for (let at = Math.ceil((from - info.start) / HEADER_SIZE) * HEADER_SIZE; info.start + at + HEADER_SIZE <= info.end; at += HEADER_SIZE) {
    if (readHeader(await reader.read(info.start + at, HEADER_SIZE))) return info.start + at;
  }
  return undefined;
}

async function extract(reader: Reader, info: ChunkInfo<TplinkMeta>, sink: Sink): Promise<void> {
  const meta = info.meta!;
  if (meta.md5 === 'mismatch') sink.problem('warning', 'TP-Link: MD5 does not match the standard salts', info.start);
  const put = async (name: string, [from, to]: [number, number]) => {
    if (to <= from) return;
    const ext = name === 'kernel' ? payloadExtension(await reader.read(info.start + from, 16)) : undefined;
    await sink.copy(ext ? `${name}.${ext}` : name, reader, info.start + from, info.start + to);
  };
  if (meta.boot[1] > 0) {
    await put('bootloader', meta.boot);
    const inner = await innerHeader(reader, info, info.start + meta.boot[1]);
    await put('firmware', [(inner ?? info.start + meta.boot[1]) - info.start, info.end - info.start]);
    return;
  }
  await put('kernel', meta.kernel);
  await put('rootfs', meta.rootfs);
}

export const tplinkHandler: Handler<TplinkMeta> = {
  id: 'tplink',
  kind: 'firmware',
  doc: {
    title: 'TP-Link firmware header v1 and v2/v3',
    references: ['OpenWrt tools/firmware-utils/src/mktplinkfw.c, mktplinkfw2.c and mktplinkfw-lib.c', 'binwalk v3 src/structures/tplink.rs'],
    limitations: [
      'v2/v3 headers are recognised by their "ver. " version string (what mktplinkfw2 and TP-Link write); others are missed',
      'The RSA signature of v3 images is not checked',
    ],
  },
  magics: [
    { bytes: Buffer.concat([Buffer.from('00000001', 'hex'), VENDOR]) },
    { bytes: Buffer.concat([Buffer.from('01000000', 'hex'), VENDOR]) },
    ...V2_VERSIONS.map((v) => ({ bytes: Buffer.concat([Buffer.from([v >>> 24, 0, 0, 0]), Buffer.from('ver. ')]) })),
  ],
  confidence: 80,
  chunk,
  extract,
};
