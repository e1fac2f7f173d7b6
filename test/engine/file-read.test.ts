// Synchronous reads of a file's bytes: a range sized by what the file holds, and the scratch buffer reads go into.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { readFileRange, ReadScratch, SCRATCH_MAX } from '../../src/engine/file-read.js';
import { sameMemory } from '../support/bytes.js';
import { tempDir } from '../support/temp-dirs.js';

let dir: string;
beforeEach(() => {
  dir = tempDir('firmscope-file-read');
});

describe('readFileRange', () => {
  it("allocates for what the file holds from the offset, not for a chunk-sized request past its end", async () => {
    const path = join(dir, 'small');
    await writeFile(path, 'firmware bytes');
    const whole = readFileRange(path, 0, 1024 * 1024);
    expect(whole.toString()).toBe('firmware bytes');
    // the view's memory is the file's size: a 1 MiB buffer per small file was what the token search allocated
    expect(whole.buffer.byteLength).toBeLessThan(64 * 1024);
    expect(readFileRange(path, 9, 1024 * 1024).toString()).toBe('bytes');
    expect(readFileRange(path, 100, 1024 * 1024).length).toBe(0);
    expect(readFileRange(path, 2, 6).toString()).toBe('rmware');
  });
});

describe('ReadScratch', () => {
  it('grows the scratch for a larger read and keeps it for smaller ones', () => {
    const scratch = new ReadScratch();
    const small = scratch.take(10);
    expect(small.length).toBe(10);
    const larger = scratch.take(1000);
    expect(larger.length).toBe(1000);
    expect(sameMemory(larger, small)).toBe(false);
    expect(sameMemory(scratch.take(500), larger)).toBe(true);
  });
  it('gives a larger read a buffer of its own and keeps what it had', () => {
    const scratch = new ReadScratch();
    const kept = scratch.take(1000);
    const large = scratch.take(SCRATCH_MAX + 1);
    expect(large.length).toBe(SCRATCH_MAX + 1);
    expect(sameMemory(large, kept)).toBe(false);
    expect(sameMemory(scratch.take(1000), kept)).toBe(true);
    expect(sameMemory(scratch.take(SCRATCH_MAX + 1), large)).toBe(false);
  });

  it('reads a range into the scratch, cut to what the file holds', async () => {
    const path = join(dir, 'file');
    await writeFile(path, 'x'.repeat(100_000));
    const scratch = new ReadScratch();
    const whole = readFileRange(path, 0, 64 * 1024 * 1024, scratch);
    expect(whole.length).toBe(100_000);
    expect(sameMemory(whole, scratch.take(1))).toBe(true);
    expect(readFileRange(path, 99_990, 64 * 1024 * 1024, scratch).toString()).toBe('x'.repeat(10));
  });
});
