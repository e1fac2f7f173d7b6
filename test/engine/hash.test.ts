import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashFile, sha256Hex } from '../../src/engine/hash.js';

describe('hashFile', () => {
  it('streams SHA-256, SHA-1 and MD5 of a file in one pass, or a subset', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fs-hash-'));
    try {
      const data = Buffer.alloc(3 * 1024 * 1024 + 17, 'firmware');
      const path = join(dir, 'f');
      await writeFile(path, data);
      const digest = (a: string) => createHash(a).update(data).digest('hex');
      expect(await hashFile(path)).toEqual({ sha256: digest('sha256'), sha1: digest('sha1'), md5: digest('md5') });
      expect(await hashFile(path, ['md5'])).toEqual({ md5: digest('md5') });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('gives the same digests for an empty file, one read in one piece and larger ones read in many (with turns of the event loop past 32 MiB)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fs-hash-'));
    try {
      for (const size of [0, 4 * 1024 * 1024, 4 * 1024 * 1024 + 1, 9 * 1024 * 1024 + 3, 33 * 1024 * 1024 + 1]) {
        const data = Buffer.alloc(size, `size ${size}`);
        const path = join(dir, `f${size}`);
        await writeFile(path, data);
        expect(await hashFile(path, ['sha256'])).toEqual({ sha256: createHash('sha256').update(data).digest('hex') });
      }
      await expect(hashFile(join(dir, 'missing'))).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('sha256Hex', () => {
  it("gives the SHA-256 of a string's UTF-8 and of bytes (a view of a larger buffer as itself)", () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('é')).toBe(createHash('sha256').update(Buffer.from('é', 'utf8')).digest('hex'));
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    const big = Buffer.from('xxabcxx');
    expect(sha256Hex(big.subarray(2, 5))).toBe(sha256Hex('abc'));
  });
});
