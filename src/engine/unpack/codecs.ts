// Block decompressors shared by handlers (SquashFS blocks, uImage payloads, UEFI sections, CBFS stages, ...).
// Every function takes a cap on its output so a lying size field or a bomb cannot exhaust memory, and every
// failure is a FormatError with the codec's reason.
import { createRequire } from 'node:module';
import { Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { decompress as zstdDecompress } from 'fzstd';
import { FormatError } from './handler.js';

const require = createRequire(import.meta.url);
// lzma-native is CommonJS with a native binding; loaded lazily so tools that never decode LZMA skip it.
let lzmaModule: typeof import('lzma-native') | undefined;
export function lzma(): typeof import('lzma-native') {
  lzmaModule ??= require('lzma-native') as typeof import('lzma-native');
  return lzmaModule;
}

const inflateAsync = promisify(zlib.inflate);
const inflateRawAsync = promisify(zlib.inflateRaw);
const gunzipAsync = promisify(zlib.gunzip);

/** Default cap for a single decoded block when the caller knows no better bound. */
export const DEFAULT_MAX_OUTPUT = 256 * 1024 * 1024;

export interface LzmaProps {
  lc: number;
  lp: number;
  pb: number;
  dictSize: number;
}

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
  { allowTruncated = false }: { allowTruncated?: boolean } = {},
): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  const input = Buffer.isBuffer(data) ? Readable.from([data]) : data;
  return new Promise<Buffer>((resolve, reject) => {
    let settled = false;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      input.unpipe(decoder);
      if (Buffer.isBuffer(data)) input.destroy();
      if (error && !(allowTruncated && total > 0)) {
        decoder.destroy();
        reject(error instanceof FormatError ? error : zlibError(codec, error));
      } else {
        decoder.destroy();
        resolve(Buffer.concat(parts, total));
      }
    };
    decoder.on('data', (chunk: Buffer) => {
      if (total + chunk.length > maxOutput) {
        finish(new FormatError(`${codec}: output exceeds ${maxOutput} bytes`));
        return;
      }
      parts.push(chunk);
      total += chunk.length;
    });
    decoder.on('error', (error) => finish(error));
    decoder.on('end', () => finish());
    input.on('error', (error) => finish(error));
    input.pipe(decoder);
  });
}

/** .xz container (one or more concatenated streams). */
export function xz(data: Buffer | Readable, maxOutput = DEFAULT_MAX_OUTPUT): Promise<Buffer> {
  return decodeThrough('xz', lzma().createStream('streamDecoder', { flags: lzma().CONCATENATED }), data, maxOutput);
}

/** LZMA-alone (.lzma): 13-byte header (props, dict size, 64-bit size that may be -1) + stream. */
export function lzmaAlone(data: Buffer | Readable, maxOutput = DEFAULT_MAX_OUTPUT): Promise<Buffer> {
  return decodeThrough('lzma', lzma().createStream('aloneDecoder', {}), data, maxOutput);
}

/**
 * Raw LZMA1 stream with known properties and no header (vendor SquashFS blocks, CBFS and UEFI variants).
 * With no end marker the decoder stops at the end of input, so truncated output is accepted when some came out.
 */
export function lzmaRaw(props: LzmaProps, data: Buffer, maxOutput = DEFAULT_MAX_OUTPUT): Promise<Buffer> {
  const decoder = lzma().createStream('rawDecoder', {
    filters: [{ id: lzma().FILTER_LZMA1, options: { dictSize: props.dictSize, lc: props.lc, lp: props.lp, pb: props.pb } }],
  });
  return decodeThrough('lzma-raw', decoder, data, maxOutput, { allowTruncated: true });
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

/** One LZ4 block (no frame) whose decoded size is at most `maxOutput`. Written from the LZ4 block format spec. */
export function lz4Block(data: Buffer, maxOutput: number): Buffer {
  const out = Buffer.allocUnsafe(maxOutput);
  let ip = 0;
  let op = 0;
  const fail = (why: string): never => {
    throw new FormatError(`lz4: ${why} at input ${ip}`);
  };
  while (ip < data.length) {
    const token = data[ip++]!;
    let literals = token >> 4;
    if (literals === 15) {
      let b: number;
      do {
        if (ip >= data.length) fail('truncated literal length');
        b = data[ip++]!;
        literals += b;
      } while (b === 255);
    }
    if (ip + literals > data.length) fail('literals past end of input');
    if (op + literals > maxOutput) fail('output larger than expected');
    data.copy(out, op, ip, ip + literals);
    ip += literals;
    op += literals;
    if (ip >= data.length) break; // the last sequence has literals only
    if (ip + 2 > data.length) fail('truncated match offset');
    const distance = data[ip]! | (data[ip + 1]! << 8);
    ip += 2;
    if (distance === 0 || distance > op) fail(`invalid match distance ${distance}`);
    let length = (token & 15) + 4;
    if ((token & 15) === 15) {
      let b: number;
      do {
        if (ip >= data.length) fail('truncated match length');
        b = data[ip++]!;
        length += b;
      } while (b === 255);
    }
    if (op + length > maxOutput) fail('output larger than expected');
    // Overlapping copies are legal (distance < length): copy byte by byte when they overlap.
    if (distance >= length) {
      out.copy(out, op, op - distance, op - distance + length);
      op += length;
    } else {
      for (let i = 0; i < length; i++, op++) out[op] = out[op - distance]!;
    }
  }
  return out.subarray(0, op);
}
