// U-Boot legacy image (uImage): a 64-byte big-endian header (magic 0x27051956, header and data CRC32, load and
// entry addresses, OS, architecture, image type, compression, 32-byte name) followed by the payload. Multi-file
// images (type 4) carry a zero-terminated table of sizes and then each image padded to 4 bytes.
import { createGunzip } from 'node:zlib';
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import { lzma } from '../codecs/blocks.js';
import { FormatError } from '../../format-error.js';
import type { ChunkContext, ChunkInfo, Handler, Reader, Sink } from '../handler.js';
import { struct } from '../struct.js';
import { crc32Range, decodeRange, safeName } from './common.js';

const Header = struct('be', {
  magic: 'u32',
  hcrc: 'u32',
  time: 'u32',
  size: 'u32',
  load: 'u32',
  ep: 'u32',
  dcrc: 'u32',
  os: 'u8',
  arch: 'u8',
  type: 'u8',
  comp: 'u8',
  name: 'bytes[32]',
});

const OS = ['invalid', 'openbsd', 'netbsd', 'freebsd', '4_4bsd', 'linux', 'svr4', 'esix', 'solaris', 'irix', 'sco',
  'dell', 'ncr', 'lynxos', 'vxworks', 'psos', 'qnx', 'u-boot', 'rtems', 'artos', 'unity', 'integrity', 'ose', 'plan9',
  'openrtos', 'arm-trusted-firmware', 'tee', 'opensbi', 'efi'];
const ARCH = ['invalid', 'alpha', 'arm', 'x86', 'ia64', 'mips', 'mips64', 'ppc', 's390', 'sh', 'sparc', 'sparc64',
  'm68k', 'nios', 'microblaze', 'nios2', 'blackfin', 'avr32', 'st200', 'sandbox', 'nds32', 'openrisc', 'arm64', 'arc',
  'x86_64', 'xtensa', 'riscv'];
const TYPE = ['invalid', 'standalone', 'kernel', 'ramdisk', 'multi', 'firmware', 'script', 'filesystem', 'flat_dt',
  'kwbimage', 'imximage', 'ubl', 'omapimage', 'aisimage', 'kernel_noload', 'pblimage', 'mxsimage', 'gpimage',
  'atmelimage', 'socfpgaimage', 'x86_setup', 'lpc32xximage', 'loadable', 'rkimage', 'rksd', 'rkspi', 'zynqimage',
  'zynqmpimage', 'zynqmpbif', 'fpga', 'vybridimage', 'tee', 'firmware_ivt', 'pmmc', 'stm32image', 'socfpgaimage_v1',
  'mtk_image', 'imx8mimage', 'imx8image', 'copro', 'sunxi_egon', 'sunxi_toc0'];
const COMP = ['none', 'gzip', 'bzip2', 'lzma', 'lzo', 'lz4', 'zstd'];
const COMP_EXT = ['', '.gz', '.bz2', '.lzma', '.lzo', '.lz4', '.zst'];
const MULTI = 4;

export type UImageMeta = {
  name: string;
  os: string;
  arch: string;
  type: string;
  compression: string;
  loadAddress: number;
  entryPoint: number;
  timestamp: number;
  dataSize: number;
  /** Sizes of the sub-images of a multi-file image. */
  parts?: number[];
};

function printableName(raw: Buffer): string | null {
  const nul = raw.indexOf(0);
  const text = raw.subarray(0, nul === -1 ? raw.length : nul);
  for (const byte of text) if (byte < 0x20 || byte > 0x7e) return null;
  return text.toString('latin1');
}

async function chunk(reader: Reader, start: number, ctx?: ChunkContext): Promise<ChunkInfo<UImageMeta> | null> {
  const raw = await reader.read(start, Header.size);
  if (raw.length < Header.size) return null;
  const h = Header.parse(raw);
  const name = printableName(h.name);
  // A lone magic (for instance the constant inside U-Boot's own code) is not a header: quiet rejection.
  if (name === null || h.os >= OS.length || h.arch >= ARCH.length || h.type === 0 || h.type >= TYPE.length) return null;
  if (h.comp >= COMP.length) return null;
  const zeroed = Buffer.from(raw);
  zeroed.writeUInt32BE(0, Header.offsetOf('hcrc'));
  if ((zlib.crc32(zeroed) >>> 0) !== h.hcrc) throw new FormatError(`uImage '${name}': header CRC mismatch`);
  const dataStart = start + Header.size;
  const end = dataStart + h.size;
  if (end > reader.size) {
    throw new FormatError(`uImage '${name}': truncated, data of ${h.size} bytes ends past the file (${reader.size})`);
  }
  const dcrc = await crc32Range(reader, dataStart, end, ctx?.signal);
  if (dcrc !== h.dcrc) throw new FormatError(`uImage '${name}': data CRC mismatch`);
  const meta: UImageMeta = {
    name,
    os: OS[h.os]!,
    arch: ARCH[h.arch]!,
    type: TYPE[h.type]!,
    compression: COMP[h.comp]!,
    loadAddress: h.load,
    entryPoint: h.ep,
    timestamp: h.time,
    dataSize: h.size,
  };
  if (h.type === MULTI) meta.parts = await multiSizes(reader, dataStart, end);
  return { start, end, meta };
}

/** The size table of a multi-file image, checked against the data size. */
async function multiSizes(reader: Reader, dataStart: number, end: number): Promise<number[]> {
  const sizes: number[] = [];
  for (let at = dataStart; ; at += 4) {
    if (at + 4 > end) throw new FormatError('uImage multi: size table runs past the data');
    const size = (await reader.readExact(at, 4)).readUInt32BE(0);
    if (size === 0) break;
    sizes.push(size);
  }
  // Every sub-image but the last is padded to 4 bytes.
  let need = (sizes.length + 1) * 4;
  sizes.forEach((size, i) => (need += i < sizes.length - 1 ? Math.ceil(size / 4) * 4 : size));
  if (dataStart + need > end) throw new FormatError('uImage multi: sub-images exceed the data size');
  return sizes;
}

function decoderFor(comp: string): Transform | undefined {
  if (comp === 'gzip') return createGunzip();
  if (comp === 'lzma') return lzma().createStream('aloneDecoder', {}) as unknown as Transform;
  return undefined;
}

/** Writes one payload: decoded when the codec streams (gzip, LZMA), else raw with the codec's extension. */
async function writePayload(sink: Sink, reader: Reader, name: string, comp: number, from: number, to: number): Promise<void> {
  const decoder = decoderFor(COMP[comp]!);
  if (decoder) {
    try {
      await sink.file(name, decodeRange(reader, from, to, decoder), { meta: { compression: COMP[comp] } });
      return;
    } catch (error) {
      if (!(error instanceof Error) || error.name === 'LimitError') throw error;
      sink.problem('error', `uImage payload '${name}': ${COMP[comp]} decoding failed (${error.message}); kept raw`, from);
    }
  }
  await sink.copy(name + COMP_EXT[comp]!, reader, from, to);
}

async function extract(reader: Reader, info: ChunkInfo<UImageMeta>, sink: Sink): Promise<void> {
  const meta = info.meta!;
  const comp = COMP.indexOf(meta.compression);
  const base = safeName(meta.name, meta.type);
  const dataStart = info.start + Header.size;
  if (!meta.parts) {
    await writePayload(sink, reader, base, comp, dataStart, info.end);
    return;
  }
  let at = dataStart + (meta.parts.length + 1) * 4;
  for (const [i, size] of meta.parts.entries()) {
    await writePayload(sink, reader, `${base}-${i}`, comp, at, Math.min(at + size, info.end));
    at += Math.ceil(size / 4) * 4;
  }
}

export const uimageHandler: Handler<UImageMeta> = {
  id: 'uimage',
  kind: 'firmware',
  doc: {
    title: 'U-Boot legacy image (uImage)',
    references: ['U-Boot include/image.h (legacy_img_hdr)', 'U-Boot tools/mkimage.c', 'unblob handlers/executable/uimage'],
    limitations: ['bzip2, LZO, LZ4 and zstd payloads are written raw (with their extension) for the compression handlers'],
  },
  magics: [{ bytes: Buffer.from('27051956', 'hex') }],
  confidence: 80,
  chunk,
  extract,
};
