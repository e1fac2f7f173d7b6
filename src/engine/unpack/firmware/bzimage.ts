// Linux x86 boot image (bzImage/zImage): a real-mode setup of (setup_sects + 1) sectors whose header carries
// 'HdrS' at 0x202, followed by the protected-mode part of syssize × 16 bytes. From boot protocol 2.08 the
// header locates the compressed kernel (payload_offset/payload_length, relative to the protected-mode part).
// Every codec but gzip has the decompressed size appended as 4 little-endian bytes, which are stripped here.
//
// What real images do that the layout above does not say: syssize counts 16-byte paragraphs, rounded up, and
// builds that do not pad their file (iPXE's .lkrn, Memtest86+) end up to 15 bytes before syssize × 16; a payload
// length of 0 (Memtest86+, protocol 2.12) means the protected-mode part is the program itself, not a compressed
// kernel; and loaders of old images take the protected-mode part's size from the file, so a syssize of 0 (SYSLINUX's
// MEMDISK, protocol 2.03) is the rest of the file, which is known only for an image that is a file of its own.
import { FormatError } from '../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../handler.js';
import { struct } from '../struct.js';
import { payloadExtension } from './common.js';

// The setup header, from offset 0x1F1 (Documentation/arch/x86/boot.rst).
const Setup = struct('le', {
  setupSects: 'u8',
  rootFlags: 'u16',
  sysSize: 'u32',
  ramSize: 'u16',
  vidMode: 'u16',
  rootDev: 'u16',
  bootFlag: 'u16',
  jump: 'u16',
  magic: 'u32',
  version: 'u16',
  realmodeSwtch: 'u32',
  startSysSeg: 'u16',
  kernelVersion: 'u16',
});
const SETUP_AT = 0x1f1;
const PAYLOAD_AT = 0x248;
const HDRS = 0x53726448;
/** syssize's unit: a file may end this many bytes minus one before syssize × 16. */
const PARAGRAPH = 16;

type BzImageMeta = {
  protocol: string;
  kernelVersion?: string;
  setupSize: number;
  payload?: { offset: number; length: number; codec: string; uncompressedSize?: number };
};

async function chunk(reader: Reader, start: number): Promise<ChunkInfo<BzImageMeta> | null> {
  const head = await reader.read(start, 0x250);
  if (head.length < 0x250) return null;
  const h = Setup.parse(head, SETUP_AT);
  if (h.magic !== HDRS || h.bootFlag !== 0xaa55 || h.version < 0x0200 || h.version > 0x02ff) return null;
  const setupSize = ((h.setupSects || 4) + 1) * 512;
  // syssize is 32-bit from protocol 2.04; before that only its low 16 bits are meaningful.
  const declared = (h.version >= 0x0204 ? h.sysSize : h.sysSize & 0xffff) * PARAGRAPH;
  const sysSize = protectedModeSize(declared, setupSize, start, reader.size);
  const end = start + setupSize + sysSize;
  const meta: BzImageMeta = { protocol: `${h.version >> 8}.${(h.version & 0xff).toString().padStart(2, '0')}`, setupSize };
  if (h.kernelVersion) {
    const text = await reader.read(start + 0x200 + h.kernelVersion, 160);
    const nul = text.indexOf(0);
    if (nul > 0) meta.kernelVersion = text.subarray(0, nul).toString('latin1');
  }
  const offset = head.readUInt32LE(PAYLOAD_AT);
  const length = head.readUInt32LE(PAYLOAD_AT + 4);
  // no payload located (length 0): the protected-mode part is kept whole, as for images before protocol 2.08
  if (h.version >= 0x0208 && (length !== 0 || offset !== 0)) {
    if (length === 0 || offset + length > sysSize) throw new FormatError('bzImage: payload outside the protected-mode part');
    const first = await reader.read(start + setupSize + offset, 16);
    const codec = payloadExtension(first) ?? 'bin';
    const payload: NonNullable<BzImageMeta['payload']> = { offset: setupSize + offset, length, codec };
    if (codec !== 'gz' && codec !== 'elf' && codec !== 'bin' && length > 4) {
      payload.length = length - 4;
      payload.uncompressedSize = (await reader.readExact(start + setupSize + offset + length - 4, 4)).readUInt32LE(0);
    }
    meta.payload = payload;
  }
  return { start, end, meta };
}

/**
 * The protected-mode part's size: syssize × 16, or what the file holds of it when the file ends within the last
 * paragraph; the rest of the file for a syssize of 0 in an image that starts its file.
 */
function protectedModeSize(declared: number, setupSize: number, start: number, fileSize: number): number {
  const held = fileSize - start - setupSize;
  if (declared === 0) {
    if (start !== 0 || held <= 0) throw new FormatError('bzImage: empty protected-mode part');
    return held;
  }
  if (declared > held) {
    if (declared - held >= PARAGRAPH) throw new FormatError(`bzImage: truncated, kernel of ${setupSize + declared} bytes runs past the file (${fileSize})`);
    return held;
  }
  return declared;
}

async function extract(reader: Reader, info: ChunkInfo<BzImageMeta>, sink: Sink): Promise<void> {
  const meta = info.meta!;
  // The real-mode setup is not written: it would only be this same truncated image again.
  if (!meta.payload) {
    // Before protocol 2.08 the payload is not located by the header: keep the whole protected-mode part.
    await sink.copy('protected-mode.bin', reader, info.start + meta.setupSize, info.end);
    return;
  }
  const { offset, length, codec, uncompressedSize } = meta.payload;
  await sink.copy(`vmlinux.${codec}`, reader, info.start + offset, info.start + offset + length, {
    meta: { uncompressedSize, kernelVersion: meta.kernelVersion },
  });
}

export const bzimageHandler: Handler<BzImageMeta> = {
  id: 'bzimage',
  kind: 'firmware',
  doc: {
    title: 'Linux x86 boot image (bzImage) and its compressed vmlinux payload',
    references: ['Linux Documentation/arch/x86/boot.rst', 'Linux arch/x86/boot/header.S and compressed/mkpiggy.c'],
    limitations: ['Images older than boot protocol 2.08, and those that locate no payload, keep their protected-mode part whole'],
  },
  magics: [{ bytes: Buffer.from('HdrS'), offset: 0x202 }],
  confidence: 70,
  chunk,
  extract,
};
