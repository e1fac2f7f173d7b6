// UEFI PI firmware volume (PI spec vol. 3): a header ('_FVH' at 0x28, 16-bit checksum, file system GUID,
// length, block map, optional extended header with the volume's name) followed, for FFS2/FFS3 volumes, by
// 8-byte aligned FFS files (GUID, type, attributes, 24-bit or FFS3 64-bit size, state bits). Each file becomes
// a folder '<GUID>_<UI name>' holding its sections (PE32/TE images, raw data, nested volumes, ...).
import { FormatError } from '../../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import { struct } from '../../struct.js';
import { safeName } from '../../firmware/common.js';
import { GUIDS, guidString } from './guid.js';
import { parseSections, type Section } from './sections.js';

const FvHeader = struct('le', {
  zeroVector: 'bytes[16]',
  fileSystem: 'bytes[16]',
  length: 'u64',
  signature: 'u32',
  attributes: 'u32',
  headerLength: 'u16',
  checksum: 'u16',
  extHeaderOffset: 'u16',
  reserved: 'u8',
  revision: 'u8',
});
const SIGNATURE_AT = 0x28;
const ERASE_POLARITY = 0x800;
const FILE_HEADER = 24;
const LARGE_FILE = 0x01;
const FILE_CHECKSUM = 0x40;
const FILE_TYPES: Record<number, string> = {
  0x01: 'RAW', 0x02: 'FREEFORM', 0x03: 'SECURITY_CORE', 0x04: 'PEI_CORE', 0x05: 'DXE_CORE', 0x06: 'PEIM',
  0x07: 'DRIVER', 0x08: 'COMBINED_PEIM_DRIVER', 0x09: 'APPLICATION', 0x0a: 'MM', 0x0b: 'FIRMWARE_VOLUME_IMAGE',
  0x0c: 'COMBINED_MM_DXE', 0x0d: 'MM_CORE', 0x0e: 'MM_STANDALONE', 0x0f: 'MM_CORE_STANDALONE', 0xf0: 'PAD',
};
const LEAF_NAMES: Record<string, string> = {
  PE32: '.efi', TE: '.te', PIC: '.pic', DXE_DEPEX: 'dxe.depex', PEI_DEPEX: 'pei.depex', MM_DEPEX: 'mm.depex',
  RAW: 'raw.bin', COMPATIBILITY16: 'csm16.bin', FIRMWARE_VOLUME_IMAGE: 'volume.fv',
};

type FvMeta = {
  fileSystem: string;
  fileSystemGuid: string;
  fvName?: string;
  revision: number;
  erasePolarity: number;
  /** Offset of the first file (or of the data of a non-FFS volume), relative to the chunk. */
  dataOffset: number;
};

// Vendor volumes whose files follow the FFS2 layout (the list UEFITool treats as FFSv2).
const FFS2_COMPATIBLE: Record<string, string> = {
  [GUIDS.ffs2]: 'ffs2',
  '7A9354D9-0468-444A-81CE-0BF617D890DF': 'ffs1',
  '04ADEEAD-61FF-4D31-B6BA-64F8BF901F5A': 'apple-boot-volume',
  'BD001B8C-6A71-487B-A14F-0C2A2DCF7A5D': 'apple-boot-volume2',
  'AD3FFFFF-D28B-44C4-9F13-9EA98A97F9F0': 'intel-ffs',
  'D6A1CD70-4B33-4994-A6EA-375F2CCC5437': 'intel-ffs2',
  '4F494156-AED6-4D64-A537-B8A5557BCEEC': 'sony-ffs',
};

function fileSystemName(guid: string): string {
  if (guid === GUIDS.ffs3) return 'ffs3';
  if (guid === GUIDS.nvData) return 'nvram';
  return FFS2_COMPATIBLE[guid] ?? 'unknown';
}

const isFfs = (meta: FvMeta) => meta.fileSystem === 'ffs3' || FFS2_COMPATIBLE[meta.fileSystemGuid] !== undefined;

async function chunk(reader: Reader, start: number): Promise<ChunkInfo<FvMeta> | null> {
  const head = await reader.read(start, 0x48);
  if (head.length < 0x48) return null;
  const h = FvHeader.parse(head);
  if (h.signature !== 0x4856465f) return null;
  if (h.headerLength < 0x48 || h.headerLength % 2 || h.length < h.headerLength || (h.revision !== 1 && h.revision !== 2)) return null;
  const header = await reader.read(start, h.headerLength);
  if (header.length < h.headerLength) throw new FormatError('firmware volume: truncated header');
  let sum = 0;
  for (let i = 0; i < header.length; i += 2) sum = (sum + header.readUInt16LE(i)) & 0xffff;
  if (sum !== 0) {
    // Drivers embed FV header templates whose checksum is filled in at run time: only a volume at the start
    // of a file is taken to be corrupt; a carved one is a false positive.
    if (start > 0) return null;
    throw new FormatError('firmware volume: header checksum mismatch');
  }
  const end = start + h.length;
  if (end > reader.size) throw new FormatError(`firmware volume: truncated, length ${h.length} runs past the file (${reader.size})`);
  const fileSystemGuid = guidString(h.fileSystem);
  const meta: FvMeta = {
    fileSystem: fileSystemName(fileSystemGuid),
    fileSystemGuid,
    revision: h.revision,
    erasePolarity: h.attributes & ERASE_POLARITY ? 0xff : 0,
    dataOffset: h.headerLength,
  };
  if (h.extHeaderOffset) {
    const ext = await reader.read(start + h.extHeaderOffset, 20);
    if (ext.length < 20 || h.extHeaderOffset + ext.readUInt32LE(16) > h.length) throw new FormatError('firmware volume: extended header out of range');
    meta.fvName = guidString(ext);
    meta.dataOffset = h.extHeaderOffset + ext.readUInt32LE(16);
  }
  meta.dataOffset = Math.ceil(meta.dataOffset / 8) * 8;
  return { start, end, meta };
}

interface FfsFile {
  offset: number;
  guid: string;
  type: number;
  attributes: number;
  headerSize: number;
  size: number;
  state: 'valid' | 'deleted' | 'invalid';
  headerChecksumOk: boolean;
  /** IntegrityCheck.File: a checksum of the data when the CHECKSUM attribute is set. */
  fileChecksum: number;
}

/** The FFS file header at `at` (relative to the volume), or undefined at the start of free space. */
async function readFile(reader: Reader, info: ChunkInfo, meta: FvMeta, at: number): Promise<FfsFile | undefined> {
  const length = info.end - info.start;
  if (at + FILE_HEADER > length) return undefined;
  const raw = await reader.readExact(info.start + at, FILE_HEADER);
  if (raw.every((b) => b === meta.erasePolarity)) return undefined;
  const attributes = raw[19]!;
  let size = raw.readUIntLE(20, 3);
  let headerSize = FILE_HEADER;
  if (attributes & LARGE_FILE && meta.fileSystem === 'ffs3') {
    size = Number((await reader.readExact(info.start + at + FILE_HEADER, 8)).readBigUInt64LE(0));
    headerSize = 32;
  }
  if (size < headerSize || at + size > length) throw new FormatError(`FFS file at 0x${at.toString(16)}: size ${size} does not fit the volume`);
  const header = Buffer.from(await reader.readExact(info.start + at, headerSize));
  // The header checksum covers the header with the state byte and the file checksum taken as zero.
  header[23] = 0;
  header[17] = 0;
  const headerChecksumOk = header.reduce((s, b) => (s + b) & 0xff, 0) === 0;
  const state = meta.erasePolarity ? ~raw[23]! & 0xff : raw[23]!;
  const top = state === 0 ? 0 : 1 << (31 - Math.clz32(state));
  return {
    offset: at,
    guid: guidString(raw),
    type: raw[18]!,
    attributes,
    headerSize,
    size,
    state: top === 0x04 || top === 0x08 ? 'valid' : top === 0x10 ? 'deleted' : 'invalid',
    headerChecksumOk,
    fileChecksum: raw[17]!,
  };
}

function leafName(section: Section, uiName: string | undefined, taken: Set<string>): string {
  const suffix = LEAF_NAMES[section.typeName];
  let name = section.subtypeGuid
    ? `${section.subtypeGuid}.bin`
    : suffix === undefined
      ? `section-${section.typeName}.bin`
      : suffix.startsWith('.')
        ? `${safeName(uiName ?? '', 'image')}${suffix}`
        : suffix;
  const original = name;
  const dot = original.lastIndexOf('.');
  for (let n = 1; taken.has(name); n++) name = `${original.slice(0, dot)}-${n}${original.slice(dot)}`;
  taken.add(name);
  return name;
}

async function writeFile(reader: Reader, info: ChunkInfo, file: FfsFile, dirs: Set<string>, sink: Sink): Promise<void> {
  const fileType = FILE_TYPES[file.type] ?? `0x${file.type.toString(16).padStart(2, '0')}`;
  const data = await reader.readExact(info.start + file.offset + file.headerSize, file.size - file.headerSize);
  const hasSections = file.type >= 0x02 && file.type <= 0x0f;
  const parsed = hasSections ? await parseSections(data).catch((error: unknown) => error as Error) : undefined;
  const sections = parsed instanceof Error ? undefined : parsed;
  const uiName = sections?.uiName;
  let dir = uiName ? `${file.guid}_${safeName(uiName, 'file')}` : file.guid;
  for (let n = 1; dirs.has(dir); n++) dir = `${uiName ? `${file.guid}_${safeName(uiName, 'file')}` : file.guid}-${n}`;
  dirs.add(dir);
  const base = { guid: file.guid, uiName, fileType };
  await sink.dir(dir, { meta: { ...base, version: sections?.version, offset: file.offset } });
  if (!file.headerChecksumOk) sink.problem('warning', `FFS file ${file.guid}: header checksum mismatch`, info.start + file.offset);
  if (file.attributes & FILE_CHECKSUM && (data.reduce((sum, b) => sum + b, file.fileChecksum) & 0xff) !== 0) {
    sink.problem('warning', `FFS file ${file.guid}: data checksum mismatch`, info.start + file.offset);
  }
  if (parsed instanceof Error) sink.problem('error', `FFS file ${file.guid}: ${parsed.message}; kept raw`, info.start + file.offset);
  for (const why of sections?.problems ?? []) sink.problem('warning', `FFS file ${file.guid}: ${why}`, info.start + file.offset);
  if (!sections) {
    await sink.file(`${dir}/raw.bin`, data, { meta: { ...base, sectionType: null } });
    return;
  }
  const taken = new Set<string>();
  for (const leaf of sections.leaves.filter((l) => l.body.length > 0)) {
    const name = leafName(leaf, uiName, taken);
    await sink.file(`${dir}/${name}`, leaf.body, { meta: { ...base, sectionType: leaf.typeName, subtypeGuid: leaf.subtypeGuid } });
  }
}

async function extract(reader: Reader, info: ChunkInfo<FvMeta>, sink: Sink): Promise<void> {
  const meta = info.meta!;
  if (!isFfs(meta)) {
    await sink.copy(meta.fileSystem === 'nvram' ? 'nvram.bin' : 'volume-data.bin', reader, info.start + meta.dataOffset, info.end);
    return;
  }
  const dirs = new Set<string>();
  let at = meta.dataOffset;
  while (true) {
    if (sink.signal.aborted) throw sink.signal.reason;
    let file: FfsFile | undefined;
    try {
      file = await readFile(reader, info, meta, at);
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      sink.problem('error', error.message, info.start + at);
      return;
    }
    if (!file) return;
    if (file.state === 'valid' && file.type !== 0xf0) await writeFile(reader, info, file, dirs, sink);
    at = Math.ceil((at + file.size) / 8) * 8;
  }
}

export const uefiFvHandler: Handler<FvMeta> = {
  id: 'uefi-fv',
  kind: 'boot',
  doc: {
    title: 'UEFI PI firmware volume (FFS2/FFS3 files and sections)',
    references: ['UEFI PI specification vol. 3 (firmware storage)', 'EDK II MdePkg/Include/Pi/PiFirmwareVolume.h, PiFirmwareFile.h', 'UEFITool ffsparser', 'linuxboot/fiano pkg/uefi'],
    limitations: ['Deleted and invalid FFS files are skipped', 'Volumes with an unknown file system are kept as volume-data.bin'],
  },
  magics: [{ bytes: Buffer.from('_FVH'), offset: SIGNATURE_AT }],
  confidence: 80,
  chunk,
  extract,
};
