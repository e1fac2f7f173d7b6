// coreboot CBFS: a chain of 64-byte aligned files, each 'LARCHIVE' + big-endian length, type, attributes
// offset and data offset, a NUL-terminated name (paths such as 'fallback/romstage') and optional attributes
// (compression, stage header, hash, position, ...). Stages and payloads are decoded: a legacy stage becomes its
// loadable program, a SELF payload one file per segment, other files (stages of type 0x11 among them, whose load
// address is an attribute) are decompressed when an attribute says so.
import { FormatError } from '../../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import { struct } from '../../struct.js';
import { COMPRESSION, decompress, MAX_SEGMENTS, Segment, SEGMENT_TYPES, StageHeader } from './decode.js';

const FileHeader = struct('be', { magic: 'bytes[8]', len: 'u32', type: 'u32', attributesOffset: 'u32', offset: 'u32' });
const MAGIC = Buffer.from('LARCHIVE');
const ALIGN = 64;
const MAX_HEADER = 1024; // header + name + attributes
const TAG_COMPRESSION = 0x42435a4c;
const TAG_STAGE_HEADER = 0x53746748; // 'StgH': load address, entry offset and size in memory of a stage (type 0x11)
const EMPTY = [0xffffffff, 0];
const TYPES: Record<number, string> = {
  0x01: 'bootblock', 0x02: 'cbfs-header', 0x10: 'legacy-stage', 0x11: 'stage', 0x20: 'payload', 0x21: 'fit',
  0x30: 'optionrom', 0x40: 'bootsplash', 0x50: 'raw', 0x51: 'vsa', 0x52: 'mbi', 0x53: 'microcode', 0x60: 'fsp',
  0x61: 'mrc', 0x62: 'mma', 0x63: 'efi', 0x70: 'struct', 0xaa: 'cmos-default', 0xab: 'spd', 0xac: 'mrc-cache',
  0x1aa: 'cmos-layout',
};
const MAX_OUTPUT = 64 * 1024 * 1024;

interface CbfsFile {
  offset: number;
  name: string;
  type: number;
  dataStart: number;
  dataEnd: number;
  compression?: { algorithm: number; size: number };
  stage?: { load: number; entry: number; memlen: number };
}

/** The file at `at`, or undefined when there is none (a chain ends quietly). */
async function readFile(reader: Reader, at: number): Promise<CbfsFile | undefined> {
  const raw = await reader.read(at, FileHeader.size);
  if (raw.length < FileHeader.size) return undefined;
  const h = FileHeader.parse(raw);
  if (!h.magic.equals(MAGIC)) return undefined;
  if (h.offset <= FileHeader.size || h.offset > MAX_HEADER) return undefined;
  if (h.attributesOffset && (h.attributesOffset <= FileHeader.size || h.attributesOffset > h.offset)) return undefined;
  const header = await reader.read(at, h.offset);
  const nameEnd = header.indexOf(0, FileHeader.size);
  if (nameEnd === -1 || nameEnd >= (h.attributesOffset || h.offset)) return undefined;
  if (at + h.offset + h.len > reader.size) throw new FormatError(`CBFS file at ${at}: truncated, ${h.len} bytes of data declared`);
  const file: CbfsFile = {
    offset: at,
    name: header.subarray(FileHeader.size, nameEnd).toString('latin1'),
    type: h.type,
    dataStart: at + h.offset,
    dataEnd: at + h.offset + h.len,
  };
  // Attributes: tag, length (including these 8 bytes), body; all big-endian.
  for (let a = h.attributesOffset; a && a + 8 <= h.offset; ) {
    const tag = header.readUInt32BE(a);
    const length = header.readUInt32BE(a + 4);
    if (length < 8 || a + length > h.offset) break;
    if (tag === TAG_COMPRESSION && length >= 16) {
      file.compression = { algorithm: header.readUInt32BE(a + 8), size: header.readUInt32BE(a + 12) };
    } else if (tag === TAG_STAGE_HEADER && length >= 24) {
      const load = Number(header.readBigUInt64BE(a + 8));
      file.stage = { load, entry: load + header.readUInt32BE(a + 16), memlen: header.readUInt32BE(a + 20) };
    }
    a += length;
  }
  return file;
}

async function* files(reader: Reader, start: number, end = reader.size): AsyncGenerator<CbfsFile> {
  for (let at = start; at < end; ) {
    const file = await readFile(reader, at);
    if (!file) return;
    yield file;
    at = start + Math.ceil((file.dataEnd - start) / ALIGN) * ALIGN;
  }
}

async function chunk(reader: Reader, start: number): Promise<ChunkInfo | null> {
  let end = 0;
  const names: string[] = [];
  for await (const file of files(reader, start)) {
    end = file.dataEnd;
    if (!EMPTY.includes(file.type)) names.push(file.name);
  }
  if (end === 0) return null;
  return { start, end, meta: { files: names } };
}

async function writeStage(reader: Reader, file: CbfsFile, sink: Sink): Promise<void> {
  const data = await reader.readExact(file.dataStart, file.dataEnd - file.dataStart);
  const h = StageHeader.parse(data);
  if (StageHeader.size + h.len > data.length) throw new FormatError(`CBFS stage ${file.name}: data of ${h.len} bytes runs past the file`);
  const body = await decompress(h.compression, data.subarray(StageHeader.size, StageHeader.size + h.len), h.memlen, MAX_OUTPUT);
  await sink.file(file.name, body, {
    meta: { cbfsType: 'stage', compression: COMPRESSION[h.compression], entry: h.entry, load: h.load, memlen: h.memlen },
  });
}

async function writePayload(reader: Reader, file: CbfsFile, sink: Sink): Promise<void> {
  const data = await reader.readExact(file.dataStart, file.dataEnd - file.dataStart);
  const segments: Array<ReturnType<typeof Segment.parse> & { kind: string }> = [];
  for (let at = 0; segments.at(-1)?.kind !== 'entry'; at += Segment.size) {
    if (at + Segment.size > data.length || segments.length >= MAX_SEGMENTS) throw new FormatError(`CBFS payload ${file.name}: no entry segment`);
    const s = Segment.parse(data, at);
    const kind = SEGMENT_TYPES[s.type];
    if (!kind) throw new FormatError(`CBFS payload ${file.name}: unknown segment type 0x${s.type.toString(16)}`);
    if (kind !== 'entry' && kind !== 'bss' && s.offset + s.len > data.length) throw new FormatError(`CBFS payload ${file.name}: segment ${segments.length} runs past the file`);
    segments.push({ ...s, kind });
  }
  await sink.dir(file.name, { meta: { cbfsType: 'payload', entry: segments.at(-1)!.load } });
  for (const [i, s] of segments.entries()) {
    if (s.kind === 'entry' || s.kind === 'bss' || s.len === 0) continue;
    const body = await decompress(s.compression, data.subarray(s.offset, s.offset + s.len), s.memlen, MAX_OUTPUT);
    await sink.file(`${file.name}/segment-${i}-${s.kind}.bin`, body, {
      meta: { cbfsType: 'payload-segment', segment: s.kind, load: s.load, memlen: s.memlen, compression: COMPRESSION[s.compression] },
    });
  }
}

/** What the result keeps about a file: its type, its compression, and for a stage where and how big it loads. */
function fileMeta(file: CbfsFile, cbfsType: string): Record<string, unknown> {
  const compression = COMPRESSION[file.compression?.algorithm ?? 0];
  if (file.stage) return { cbfsType, compression, ...file.stage };
  return file.compression ? { cbfsType, compression } : { cbfsType };
}

async function extract(reader: Reader, info: ChunkInfo, sink: Sink): Promise<void> {
  for await (const file of files(reader, info.start, info.end)) {
    if (sink.signal.aborted) throw sink.signal.reason;
    if (EMPTY.includes(file.type)) continue;
    const type = TYPES[file.type] ?? `0x${file.type.toString(16)}`;
    try {
      if (file.type === 0x10) await writeStage(reader, file, sink);
      else if (file.type === 0x20) await writePayload(reader, file, sink);
      else if (file.compression && file.compression.algorithm !== 0) {
        const data = await reader.readExact(file.dataStart, file.dataEnd - file.dataStart);
        const body = await decompress(file.compression.algorithm, data, file.compression.size, MAX_OUTPUT);
        await sink.file(file.name, body, { meta: fileMeta(file, type) });
      } else {
        await sink.copy(file.name, reader, file.dataStart, file.dataEnd, { meta: fileMeta(file, type) });
      }
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      sink.problem('error', `${error.message}; kept raw`, file.offset);
      await sink.copy(`${file.name}.raw`, reader, file.dataStart, file.dataEnd, { meta: fileMeta(file, type) });
    }
  }
}

export const cbfsHandler: Handler = {
  id: 'cbfs',
  kind: 'boot',
  doc: {
    title: 'coreboot file system (CBFS)',
    references: ['coreboot src/commonlib/bsd/include/commonlib/bsd/cbfs_serialized.h', 'coreboot util/cbfstool', 'linuxboot/fiano pkg/cbfs'],
    limitations: ['Files are found by walking the chain from the first one; a chain broken by a corrupt header ends the chunk there'],
  },
  magics: [{ bytes: MAGIC }],
  confidence: 70,
  chunk,
  extract,
};
