// Android sparse image (libsparse, as made by img2simg and used for fastboot system/vendor images): a 28-byte
// little-endian header (block size, total blocks, chunk count) and chunks of raw blocks, a 4-byte fill pattern,
// "don't care" holes or CRC32 markers. Extraction expands it to the raw image, streamed block range by range.
import { FormatError } from '../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../handler.js';
import { struct } from '../struct.js';

const Header = struct('le', {
  magic: 'u32', major: 'u16', minor: 'u16', fileHeaderSize: 'u16', chunkHeaderSize: 'u16', blockSize: 'u32',
  totalBlocks: 'u32', totalChunks: 'u32', checksum: 'u32',
});
const ChunkHeader = struct('le', { type: 'u16', reserved: 'u16', blocks: 'u32', totalSize: 'u32' });
const RAW = 0xcac1;
const FILL = 0xcac2;
const DONT_CARE = 0xcac3;
const CRC32 = 0xcac4;
const PIECE = 1 << 20;

interface SparseChunk {
  type: number;
  blocks: number;
  dataStart: number;
  dataEnd: number;
}

type SparseMeta = {
  blockSize: number;
  totalBlocks: number;
  chunks: SparseChunk[];
};

async function chunk(reader: Reader, start: number): Promise<ChunkInfo<SparseMeta> | null> {
  const raw = await reader.read(start, Header.size);
  if (raw.length < Header.size) return null;
  const h = Header.parse(raw);
  if (h.major !== 1 || h.fileHeaderSize < Header.size || h.chunkHeaderSize < ChunkHeader.size) return null;
  if (h.blockSize === 0 || h.blockSize % 4 !== 0) return null;
  const chunks: SparseChunk[] = [];
  let at = start + h.fileHeaderSize;
  let blocks = 0;
  for (let i = 0; i < h.totalChunks; i++) {
    const c = ChunkHeader.parse(await reader.readExact(at, ChunkHeader.size));
    const dataStart = at + h.chunkHeaderSize;
    const expected = { [RAW]: c.blocks * h.blockSize, [FILL]: 4, [DONT_CARE]: 0, [CRC32]: 4 }[c.type];
    if (expected === undefined) throw new FormatError(`android sparse: chunk ${i} has unknown type 0x${c.type.toString(16)}`);
    if (c.totalSize !== h.chunkHeaderSize + expected) throw new FormatError(`android sparse: chunk ${i} size ${c.totalSize} does not match its ${c.blocks} blocks`);
    if (dataStart + expected > reader.size) throw new FormatError(`android sparse: truncated in chunk ${i}`);
    chunks.push({ type: c.type, blocks: c.type === CRC32 ? 0 : c.blocks, dataStart, dataEnd: dataStart + expected });
    blocks += c.type === CRC32 ? 0 : c.blocks;
    at = dataStart + expected;
  }
  if (blocks !== h.totalBlocks) throw new FormatError(`android sparse: chunks cover ${blocks} blocks, header says ${h.totalBlocks}`);
  const meta: SparseMeta = { blockSize: h.blockSize, totalBlocks: h.totalBlocks, chunks };
  return { start, end: at, meta };
}

async function* expand(reader: Reader, meta: SparseMeta, signal: AbortSignal): AsyncGenerator<Buffer> {
  for (const c of meta.chunks) {
    let remaining = c.blocks * meta.blockSize;
    if (c.type === RAW) {
      for (let at = c.dataStart; at < c.dataEnd; at += PIECE) {
        if (signal.aborted) throw signal.reason;
        yield await reader.readExact(at, Math.min(PIECE, c.dataEnd - at));
      }
      continue;
    }
    if (c.type === CRC32 || remaining === 0) continue;
    const piece = Buffer.alloc(Math.min(PIECE, remaining));
    if (c.type === FILL) {
      const pattern = await reader.readExact(c.dataStart, 4);
      for (let i = 0; i < piece.length; i += 4) pattern.copy(piece, i);
    }
    while (remaining > 0) {
      if (signal.aborted) throw signal.reason;
      const n = Math.min(piece.length, remaining);
      yield n === piece.length ? piece : piece.subarray(0, n);
      remaining -= n;
    }
  }
}

async function extract(reader: Reader, info: ChunkInfo<SparseMeta>, sink: Sink): Promise<void> {
  const meta = info.meta!;
  await sink.file('image.raw', expand(reader, meta, sink.signal), { meta: { blockSize: meta.blockSize, blocks: meta.totalBlocks } });
}

export const androidSparseHandler: Handler<SparseMeta> = {
  id: 'android-sparse',
  kind: 'firmware',
  doc: {
    title: 'Android sparse image',
    references: ['AOSP system/core/libsparse/sparse_format.h and simg2img', 'unblob handlers/filesystem/android/sparse'],
    limitations: ['CRC32 chunks are skipped, not verified'],
  },
  magics: [{ bytes: Buffer.from('3aff26ed', 'hex') }],
  confidence: 80,
  chunk,
  extract,
};
