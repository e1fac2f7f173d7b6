// Block decompressors shared by handlers (SquashFS blocks, uImage payloads, UEFI sections, CBFS stages, ...).
// Every function takes a cap on its output so a lying size field or a bomb cannot exhaust memory, and every
// failure is a FormatError with the codec's reason.
import { Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { decompress as zstdDecompress } from 'fzstd';
import { decodeLzma, lzma, type DecodeOptions, type LzmaProps } from './lzma.js';
import { lz4DecodeInto } from './lz4-block.js';
import { declaredXzSize } from './xz-declared.js';
import { FormatError } from '../../format-error.js';

export { lzma, type DecodeOptions, type LzmaProps } from './lzma.js';

const inflateAsync = promisify(zlib.inflate);
const inflateRawAsync = promisify(zlib.inflateRaw);
const gunzipAsync = promisify(zlib.gunzip);

/** Default cap for a single decoded block when the caller knows no better bound. */
export const DEFAULT_MAX_OUTPUT = 256 * 1024 * 1024;

/** Decodes the LZMA properties byte (lc + lp*9 + pb*45); null when it is out of range. */
export function parseLzmaPropsByte(byte: number, dictSize: number): LzmaProps | null {
  if (byte >= 9 * 5 * 5) return null;
  const lc = byte % 9;
  const rest = Math.floor(byte / 9);
  return { lc, lp: rest % 5, pb: Math.floor(rest / 5), dictSize: Math.max(dictSize, 4096) };
}

function zlibError(codec: string, error: unknown): FormatError {
  const message = error instanceof Error ? error.message : String(error);
  return new FormatError(`${codec}: ${message}`);
}

export async function inflate(data: Buffer, maxOutput = DEFAULT_MAX_OUTPUT): Promise<Buffer> {
  try {
    return await inflateAsync(data, { maxOutputLength: maxOutput });
  } catch (error) {
    throw zlibError('zlib', error);
  }
}

export async function inflateRaw(data: Buffer, maxOutput = DEFAULT_MAX_OUTPUT): Promise<Buffer> {
  try {
    return await inflateRawAsync(data, { maxOutputLength: maxOutput });
  } catch (error) {
    throw zlibError('deflate', error);
  }
}

export async function gunzip(data: Buffer, maxOutput = DEFAULT_MAX_OUTPUT): Promise<Buffer> {
  try {
    return await gunzipAsync(data, { maxOutputLength: maxOutput });
  } catch (error) {
    throw zlibError('gzip', error);
  }
}

/** Runs `data` through a decoding Transform and collects at most `maxOutput` bytes. */
export async function decodeThrough(
  codec: string,
  decoder: Transform,
  data: Buffer | Readable,
  maxOutput: number,
  { allowTruncated = false, stopAt }: DecodeOptions = {},
): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  const input = Buffer.isBuffer(data) ? Readable.from([data]) : data;
  return new Promise<Buffer>((resolve, reject) => {
    let settled = false;
    const finish = (error?: unknown, { capped = false } = {}) => {
      if (settled) return;
      settled = true;
      input.unpipe(decoder);
      if (Buffer.isBuffer(data)) input.destroy();
      decoder.destroy();
      const output = Buffer.concat(parts, total);
      if (stopAt !== undefined && total >= stopAt) resolve(output.subarray(0, stopAt));
      else if (error && (capped || !(allowTruncated && total > 0))) reject(error instanceof FormatError ? error : zlibError(codec, error));
      else if (stopAt !== undefined && !allowTruncated) reject(new FormatError(`${codec}: stream ended after ${total} of ${stopAt} bytes`));
      else resolve(output);
    };
    decoder.on('data', (chunk: Buffer) => {
      if (settled) return;
      if (total + chunk.length > maxOutput) {
        finish(new FormatError(`${codec}: output exceeds ${maxOutput} bytes`), { capped: true });
        return;
      }
      parts.push(chunk);
      total += chunk.length;
      if (stopAt !== undefined && total >= stopAt) finish();
    });
    decoder.on('error', (error) => finish(error));
    decoder.on('end', () => finish());
    input.on('error', (error) => finish(error));
    input.pipe(decoder);
  });
}

/** .xz container (one or more concatenated streams); in-memory data is decoded synchronously. */
export async function xz(data: Buffer | Readable, maxOutput = DEFAULT_MAX_OUTPUT): Promise<Buffer> {
  if (Buffer.isBuffer(data)) {
    // a stream that bounds its own output (every xz block of a SquashFS) goes to liblzma in one call: xz-declared.ts
    const declared = declaredXzSize(data, maxOutput);
    if (!declared) return decodeLzma('xz', { kind: 'xz' }, data, maxOutput);
    return decodeLzma('xz', { kind: 'xz', single: true }, data, maxOutput, { enforcedOutput: declared });
  }
  return decodeThrough('xz', lzma().createStream('streamDecoder', { flags: lzma().CONCATENATED }), data, maxOutput);
}

/**
 * LZMA-alone (.lzma): 13-byte header (props, dict size, 64-bit size that may be all ones = unknown) + stream.
 * With a declared size, exactly that many bytes are decoded and what follows is ignored (vendor tools leave
 * trailing bytes after the stream that liblzma's alone decoder would call corrupt).
 */
export async function lzmaAlone(data: Buffer, maxOutput = DEFAULT_MAX_OUTPUT): Promise<Buffer> {
  if (data.length < 13) throw new FormatError('lzma: header truncated');
  const props = parseLzmaPropsByte(data[0]!, data.readUInt32LE(1));
  if (!props) throw new FormatError(`lzma: invalid properties byte 0x${data[0]!.toString(16)}`);
  const declared = data.readBigUInt64LE(5);
  if (declared === 0xffffffffffffffffn) return decodeLzma('lzma', { kind: 'alone' }, data, maxOutput);
  if (declared > BigInt(maxOutput)) throw new FormatError(`lzma: declared size ${declared} exceeds ${maxOutput} bytes`);
  const size = Number(declared);
  if (size === 0) return Buffer.alloc(0);
  return lzmaRaw(props, data.subarray(13), maxOutput, { stopAt: size });
}

/**
 * Raw LZMA1 stream with known properties and no header (vendor SquashFS blocks, CBFS and UEFI variants).
 * With no end marker the decoder stops at the end of input, so truncated output is accepted when some came out.
 */
export async function lzmaRaw(props: LzmaProps, data: Buffer, maxOutput = DEFAULT_MAX_OUTPUT, options: { stopAt?: number } = {}): Promise<Buffer> {
  // Without a declared size a raw stream just ends: what came out is the payload. With one, it must be reached.
  return decodeLzma('lzma-raw', { kind: 'raw', props }, data, maxOutput, { allowTruncated: options.stopAt === undefined, stopAt: options.stopAt });
}

/** Zstandard frame(s). */
export function zstd(data: Buffer, maxOutput = DEFAULT_MAX_OUTPUT): Buffer {
  try {
    const out = zstdDecompress(data);
    if (out.length > maxOutput) throw new FormatError(`zstd: output exceeds ${maxOutput} bytes`);
    return Buffer.from(out.buffer, out.byteOffset, out.length);
  } catch (error) {
    throw error instanceof FormatError ? error : zlibError('zstd', error);
  }
}

/** One LZ4 block (no frame) whose decoded size is at most `maxOutput`. */
export function lz4Block(data: Buffer, maxOutput: number): Buffer {
  const out = Buffer.allocUnsafe(maxOutput);
  return out.subarray(0, lz4DecodeInto(data, out, 0));
}
