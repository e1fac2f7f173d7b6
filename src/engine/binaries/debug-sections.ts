// The bytes of an ELF debug section, decompressed when it is SHF_COMPRESSED (what `objcopy
// --compress-debug-sections` and Debian's dbgsym packages write): an Elf_Chdr (type, size, alignment) and then
// a zlib or zstd stream. The declared size is capped and must be what the stream holds. The older GNU
// `.zdebug_*` sections are not read (the caller says so).
import { inflateSync } from 'node:zlib';
import { decompress as zstdDecompress } from 'fzstd';
import { FormatError } from '../format-error.js';
import { bufferSource } from './byte-source.js';
import { type ElfInfo, type ElfSection, MAX_TABLE, readSection } from './elf.js';

export const SHF_COMPRESSED = 0x800;
const ELFCOMPRESS_ZLIB = 1;
const ELFCOMPRESS_ZSTD = 2;

export async function readDebugSection(elf: ElfInfo, buf: Buffer, section: ElfSection): Promise<Buffer> {
  const raw = await readSection(bufferSource(buf), section);
  if ((section.flags & SHF_COMPRESSED) === 0) return raw;
  const le = elf.endian === 'le';
  const is64 = elf.class === 64;
  const headerSize = is64 ? 24 : 12;
  if (raw.length < headerSize) throw new FormatError(`${section.name}: compressed section shorter than its header`);
  const type = le ? raw.readUInt32LE(0) : raw.readUInt32BE(0);
  const size = is64 ? Number(le ? raw.readBigUInt64LE(8) : raw.readBigUInt64BE(8)) : le ? raw.readUInt32LE(4) : raw.readUInt32BE(4);
  if (size > MAX_TABLE) throw new FormatError(`${section.name}: ${size} bytes decompressed exceeds the ${MAX_TABLE}-byte cap`);
  const data = raw.subarray(headerSize);
  let out: Buffer;
  try {
    if (type === ELFCOMPRESS_ZLIB) out = inflateSync(data, { maxOutputLength: Math.max(size, 1) });
    else if (type === ELFCOMPRESS_ZSTD) out = Buffer.from(zstdDecompress(data, new Uint8Array(size)));
    else throw new FormatError(`${section.name}: unknown compression type ${type}`);
  } catch (error) {
    if (error instanceof FormatError) throw error;
    throw new FormatError(`${section.name}: compressed data is corrupt (${(error as Error).message})`);
  }
  if (out.length !== size) throw new FormatError(`${section.name}: decompressed to ${out.length} bytes, its header says ${size}`);
  return out;
}
