// TP-Link firmware header v1 (mktplinkfw): a 512-byte big-endian header with vendor and firmware version
// strings, hardware id, an MD5 over the whole image (computed with the MD5 field replaced by a fixed salt),
// load/entry addresses, and the offsets and lengths of the kernel, root filesystem and optional bootloader.
// Images that carry a bootloader put the bootloader right after the header and the ordinary firmware (with its
// own header) after it; their outer header's kernel/rootfs fields describe that inner firmware.
import { createHash } from 'node:crypto';
import { FormatError, type ChunkInfo, type Handler, type Reader, type Sink } from '../handler.js';
import { struct } from '../struct.js';
import { hashRange, payloadExtension } from './common.js';

const Header = struct('be', {
  version: 'u32',
  vendor: 'char[24]',
  fwVersion: 'char[36]',
  hwId: 'u32',
  hwRev: 'u32',
  region: 'u32',
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
  verHi: 'u16',
  verMid: 'u16',
  verLo: 'u16',
});
const HEADER_SIZE = 0x200;
const VENDOR = Buffer.from('TP-LINK Technologies');
// The salts mktplinkfw puts in place of the MD5 while hashing (one for images with a bootloader).
const SALT_NORMAL = Buffer.from('dcd73aa5c39598fbddf9e7f40eae4738', 'hex');
const SALT_BOOT = Buffer.from('8cef335bd5c5cefaa79c28dab2e90f42', 'hex');

interface TplinkMeta {
  vendor: string;
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
}

async function md5Matches(reader: Reader, start: number, end: number, stored: Buffer, salt: Buffer): Promise<boolean> {
  const hash = createHash('md5');
  const header = Buffer.from(await reader.readExact(start, HEADER_SIZE));
  salt.copy(header, Header.offsetOf('md5'));
  hash.update(header);
  await hashRange(reader, hash, start + HEADER_SIZE, end);
  return hash.digest().equals(stored);
}

function region(offset: number, length: number, total: number, what: string): [number, number] {
  if (length === 0) return [0, 0];
  if (offset < HEADER_SIZE || offset > total) throw new FormatError(`TP-Link: ${what} offset ${offset} outside the image`);
  return [offset, Math.min(offset + length, total)];
}

async function chunk(reader: Reader, start: number): Promise<ChunkInfo | null> {
  const raw = await reader.read(start, Header.size);
  if (raw.length < Header.size) return null;
  const h = Header.parse(raw);
  if ((h.version !== 1 && h.version !== 0x01000000) || !raw.subarray(4, 4 + VENDOR.length).equals(VENDOR)) return null;
  if (h.fwLength < HEADER_SIZE) throw new FormatError(`TP-Link: firmware length ${h.fwLength} is shorter than the header`);
  const end = start + h.fwLength;
  if (end > reader.size) throw new FormatError(`TP-Link: truncated, firmware length ${h.fwLength} runs past the file (${reader.size})`);
  const boot: [number, number] = h.bootLength ? [HEADER_SIZE, HEADER_SIZE + h.bootLength] : [0, 0];
  if (boot[1] > h.fwLength) throw new FormatError('TP-Link: bootloader runs past the image');
  const stored = h.md5;
  const valid = await md5Matches(reader, start, end, stored, h.bootLength ? SALT_BOOT : SALT_NORMAL);
  const meta: TplinkMeta = {
    vendor: h.vendor,
    fwVersion: h.fwVersion,
    version: `${h.verHi}.${h.verMid}.${h.verLo}`,
    hwId: h.hwId.toString(16).padStart(8, '0'),
    hwRev: h.hwRev,
    kernelLoad: h.kernelLoad,
    kernelEntry: h.kernelEntry,
    md5: valid ? 'valid' : 'mismatch',
    boot,
    // With a bootloader these describe the inner firmware; they are only used without one.
    kernel: h.bootLength ? [0, 0] : region(h.kernelOffset, h.kernelLength, h.fwLength, 'kernel'),
    rootfs: h.bootLength ? [0, 0] : region(h.rootfsOffset, h.rootfsLength, h.fwLength, 'rootfs'),
  };
  return { start, end, meta: meta as unknown as Record<string, unknown> };
}

/** The inner firmware after a bootloader: the next 512-aligned TP-Link header, if any. */
async function innerHeader(reader: Reader, info: ChunkInfo, from: number): Promise<number | undefined> {
  for (let at = Math.ceil((from - info.start) / HEADER_SIZE) * HEADER_SIZE; info.start + at + 64 <= info.end; at += HEADER_SIZE) {
    const head = await reader.read(info.start + at, 4 + VENDOR.length);
    if (head.subarray(4).equals(VENDOR)) return info.start + at;
  }
  return undefined;
}

async function extract(reader: Reader, info: ChunkInfo, sink: Sink): Promise<void> {
  const meta = info.meta as unknown as TplinkMeta;
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

export const tplinkHandler: Handler = {
  id: 'tplink',
  kind: 'firmware',
  doc: {
    title: 'TP-Link firmware header v1',
    references: ['OpenWrt tools/firmware-utils/src/mktplinkfw.c and mktplinkfw-lib.c', 'binwalk v3 src/structures/tplink.rs'],
    limitations: ['Header v2 (no vendor string) and the safeloader partition-table format are not handled'],
  },
  magics: [{ bytes: Buffer.concat([Buffer.from('00000001', 'hex'), VENDOR]) }, { bytes: Buffer.concat([Buffer.from('01000000', 'hex'), VENDOR]) }],
  confidence: 80,
  chunk,
  extract,
};
