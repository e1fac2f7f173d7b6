// FileReader.readTransient (one reused buffer for reads nobody keeps) and the range helpers that use it
// (firmware/common.ts): the same checksums and hashes as over the bytes themselves, through the reader's buffer or
// through readExact for a reader without one, and a clear FormatError for a range past the end.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormatError } from '../../../src/engine/format-error.js';
import { crc32Range, hashRange } from '../../../src/engine/unpack/firmware/common.js';
import type { Reader } from '../../../src/engine/unpack/handler.js';
import { BufferReader, FileReader } from '../../../src/engine/unpack/reader.js';

// three blocks and a bit, so that ranges cross the range helpers' 1 MiB steps
const bytes = randomBytes(3 * 1024 * 1024 + 12345);
let dir: string;
let reader: FileReader;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'firmscope-reader-'));
  await writeFile(join(dir, 'image.bin'), bytes);
  reader = await FileReader.open(join(dir, 'image.bin'));
});

afterAll(async () => {
  await reader.close();
  await rm(dir, { recursive: true, force: true });
});

describe('FileReader.readTransient', () => {
  it('reads what read() reads, into one buffer shared by every reader on the thread', async () => {
    const other = await FileReader.open(join(dir, 'image.bin'));
    try {
      const first = reader.readTransient!(100, 2 * 1024 * 1024);
      expect(first.equals(bytes.subarray(100, 100 + 2 * 1024 * 1024))).toBe(true);
      expect(first.equals(await reader.read(100, 2 * 1024 * 1024))).toBe(true);
      const second = other.readTransient!(7, 5000);
      expect(second.equals(bytes.subarray(7, 5007))).toBe(true);
      // the second read went into the first one's memory, as documented: its bytes are not to be kept
      expect(second.buffer).toBe(first.buffer);
    } finally {
      await other.close();
    }
  });

  it('is short at the end of the file and empty past it', () => {
    expect(reader.readTransient!(bytes.length - 10, 100).equals(bytes.subarray(bytes.length - 10))).toBe(true);
    expect(reader.readTransient!(bytes.length + 5, 100).length).toBe(0);
  });

  it('refuses a negative or endless range with a FormatError', () => {
    expect(() => reader.readTransient!(-1, 10)).toThrow(FormatError);
    expect(() => reader.readTransient!(0, Infinity)).toThrow(FormatError);
  });
});

describe('crc32Range and hashRange', () => {
  const from = 4097;
  const to = bytes.length - 3;
  const crc = zlib.crc32(bytes.subarray(from, to)) >>> 0;
  const sha = createHash('sha256').update(bytes.subarray(from, to)).digest('hex');

  it('give the checksum and hash of the bytes through the reader’s own buffer', async () => {
    expect(await crc32Range(reader, from, to)).toBe(crc);
    expect((await hashRange(reader, createHash('sha256'), from, to)).digest('hex')).toBe(sha);
  });

  it('give the same through readExact for a reader without readTransient', async () => {
    const inMemory: Reader = new BufferReader(bytes);
    expect(inMemory.readTransient).toBeUndefined();
    expect(await crc32Range(inMemory, from, to)).toBe(crc);
    expect((await hashRange(inMemory, createHash('sha256'), from, to)).digest('hex')).toBe(sha);
  });

  it('fail with a FormatError on a range past the end, either way', async () => {
    await expect(hashRange(reader, createHash('sha256'), from, bytes.length + 1)).rejects.toBeInstanceOf(FormatError);
    await expect(crc32Range(new BufferReader(bytes), from, bytes.length + 1)).rejects.toBeInstanceOf(FormatError);
  });

  it('stop at an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stopped'));
    await expect(crc32Range(reader, from, to, controller.signal)).rejects.toThrow('stopped');
  });
});
