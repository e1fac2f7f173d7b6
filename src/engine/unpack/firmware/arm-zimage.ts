// Linux ARM zImage: a position-independent decompressor whose header carries the magic 0x016F2818 at 0x24,
// its start and end addresses at 0x28/0x2C (the image size is their difference) and, in newer kernels, an
// endianness marker at 0x30. The compressed kernel (piggy data: gzip, LZMA, xz, LZO, LZ4 or zstd) follows the
// decompressor code; it is written from its first byte to the end of the image, for the compression handlers.
import { FormatError } from '../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../handler.js';
import { payloadExtension } from './common.js';

const MAGIC_AT = 0x24;
const MAGIC_LE = 0x016f2818;
const SCAN_LIMIT = 256 * 1024; // the decompressor is a few tens of KiB

/** Offsets of the compressed payloads a zImage can carry, strictest first. */
function findPayload(data: Buffer): { offset: number; ext: string } | undefined {
  let best: { offset: number; ext: string } | undefined;
  const consider = (magic: Buffer, check: (at: number) => boolean) => {
    for (let at = data.indexOf(magic, 0x40); at !== -1 && (!best || at < best.offset); at = data.indexOf(magic, at + 1)) {
      if (!check(at)) continue;
      const ext = payloadExtension(data.subarray(at, at + 16));
      if (ext) best = { offset: at, ext };
      return;
    }
  };
  consider(Buffer.from('fd377a585a00', 'hex'), () => true);
  consider(Buffer.from('894c5a4f000d0a1a0a', 'hex'), () => true);
  consider(Buffer.from('02214c18', 'hex'), () => true);
  consider(Buffer.from('28b52ffd', 'hex'), () => true);
  // gzip: deflate method, no reserved flags, and an OS byte from the spec's table.
  consider(Buffer.from('1f8b08', 'hex'), (at) => data[at + 3]! < 0x20 && (data[at + 9]! <= 13 || data[at + 9] === 255));
  // LZMA-alone as the kernel's Makefile makes it: properties 0x5D and unknown size... or the real size.
  consider(Buffer.from('5d0000', 'hex'), (at) => at + 13 <= data.length);
  return best;
}

async function chunk(reader: Reader, start: number): Promise<ChunkInfo | null> {
  const head = await reader.read(start, 0x34);
  if (head.length < 0x30) return null;
  const le = head.readUInt32LE(MAGIC_AT) === MAGIC_LE;
  if (!le && head.readUInt32BE(MAGIC_AT) !== MAGIC_LE) return null;
  const read = (at: number) => (le ? head.readUInt32LE(at) : head.readUInt32BE(at));
  const size = (read(0x2c) - read(0x28)) >>> 0;
  if (size < 0x40 || size > 64 * 1024 * 1024) return null;
  if (start + size > reader.size) throw new FormatError(`ARM zImage: truncated, image of ${size} bytes runs past the file (${reader.size})`);
  const payload = findPayload(await reader.read(start, Math.min(size, SCAN_LIMIT)));
  return { start, end: start + size, meta: { endian: le ? 'le' : 'be', loadAddress: read(0x28), payload } };
}

async function extract(reader: Reader, info: ChunkInfo, sink: Sink): Promise<void> {
  const payload = info.meta!.payload as { offset: number; ext: string } | undefined;
  if (!payload) {
    sink.problem('warning', 'ARM zImage: no compressed kernel found after the decompressor', info.start);
    return;
  }
  await sink.copy(`vmlinux.${payload.ext}`, reader, info.start + payload.offset, info.end);
}

export const armZimageHandler: Handler = {
  id: 'arm-zimage',
  kind: 'firmware',
  doc: {
    title: 'Linux ARM zImage (self-decompressing kernel)',
    references: ['Linux arch/arm/boot/compressed/head.S (zImage header)', 'Linux Documentation/arch/arm/booting.rst'],
    limitations: ['The payload runs to the end of the image; the compression handler finds the exact end of the stream'],
  },
  magics: [{ bytes: Buffer.from('18286f01', 'hex'), offset: MAGIC_AT }, { bytes: Buffer.from('016f2818', 'hex'), offset: MAGIC_AT }],
  confidence: 70,
  chunk,
  extract,
};
