// Small helpers shared by the firmware, boot and filesystem handlers: safe child names, CRC32 and hashes over a reader
// range, and recognising the compression of a raw payload by its magic (to give it a telling file extension).
import type { Hash } from 'node:crypto';
import { pipeline, type Readable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import { FormatError } from '../../format-error.js';
import type { Reader } from '../handler.js';

/** A single path segment from a name found in a header: printable, no '/', never empty. */
export function safeName(raw: string, fallback: string): string {
  const cleaned = raw
    .replace(/[\x00-\x1f\x7f-\uffff]/g, '')
    .replace(/[/\\]/g, '_')
    .trim();
  if (cleaned === '' || cleaned === '.' || cleaned === '..') return fallback;
  return cleaned.slice(0, 128);
}

const BLOCK = 1024 * 1024;

/**
 * Hands the bytes [start, end) of a reader to `consume` in pieces of at most BLOCK bytes that it must not keep
 * (Reader.readTransient where the reader has it); FormatError where the range passes the end.
 */
export async function rangePieces(reader: Reader, start: number, end: number, consume: (piece: Buffer) => void, signal?: AbortSignal): Promise<void> {
  for (let at = start; at < end; at += BLOCK) {
    if (signal?.aborted) throw signal.reason;
    const want = Math.min(BLOCK, end - at);
    const piece = reader.readTransient ? reader.readTransient(at, want) : await reader.readExact(at, want);
    if (piece.length !== want) throw new FormatError(`truncated: wanted ${want} bytes at offset ${at}, file ends at ${reader.size}`);
    consume(piece);
  }
}

/** Standard CRC-32 (IEEE, as zlib) of the bytes [start, end) of a reader, read in bounded blocks. */
export async function crc32Range(reader: Reader, start: number, end: number, signal?: AbortSignal): Promise<number> {
  let crc = 0;
  await rangePieces(reader, start, end, (piece) => (crc = zlib.crc32(piece, crc)), signal);
  return crc >>> 0;
}

/** Feeds the bytes [start, end) of a reader to `hash` in bounded blocks; returns the hash for chaining. */
export async function hashRange(reader: Reader, hash: Hash, start: number, end: number): Promise<Hash> {
  await rangePieces(reader, start, end, (piece) => hash.update(piece));
  return hash;
}

/** Magics of the compressed payloads bootloaders and kernels carry, most specific first. */
const PAYLOAD_MAGICS: Array<[Buffer, string]> = [
  [Buffer.from('fd377a585a00', 'hex'), 'xz'],
  [Buffer.from('1f8b08', 'hex'), 'gz'],
  [Buffer.from('425a68', 'hex'), 'bz2'],
  [Buffer.from('894c5a4f000d0a1a0a', 'hex'), 'lzo'],
  [Buffer.from('02214c18', 'hex'), 'lz4'],
  [Buffer.from('04224d18', 'hex'), 'lz4'],
  [Buffer.from('28b52ffd', 'hex'), 'zst'],
  [Buffer.from('7f454c46', 'hex'), 'elf'],
];

/** The file extension a payload gets from its first bytes ('lzma' for a plausible LZMA-alone header). */
export function payloadExtension(head: Buffer): string | undefined {
  for (const [magic, ext] of PAYLOAD_MAGICS) {
    if (head.length >= magic.length && head.subarray(0, magic.length).equals(magic)) return ext;
  }
  // LZMA-alone: properties byte < 225 (usually 0x5D/0x6D) and a power-of-two-ish dictionary size.
  if (head.length >= 13 && head[0]! < 225 && (head[0] === 0x5d || head[0] === 0x6d)) {
    const dict = head.readUInt32LE(1);
    if (dict >= 4096 && dict <= 1 << 30) return 'lzma';
  }
  return undefined;
}

/**
 * The bytes [from, to) of a reader piped through a decoder, as one stream for Sink.file: a failure on either
 * side destroys both and surfaces once, as the error of the returned stream.
 */
export function decodeRange(reader: Reader, from: number, to: number, decoder: Transform): Readable {
  return pipeline(reader.stream(from, to), decoder, () => {});
}
