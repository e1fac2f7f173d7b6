// Results people can trust: problem levels, the scan summary and the outcome rules of the engine. A broken
// container makes the result incomplete, an unrecognised file is refused, a carving candidate that is not its
// format is only 'info', and a full disk fails the extraction.
import { execFileSync } from 'node:child_process';
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isEngineError, UnrecognisedImageError } from '../../src/engine/errors.js';
import { levelOf } from '../../src/engine/problems.js';
import { pseudoRandom } from '../support/bytes.js';
import { scan } from '../../src/engine/scan.js';
import { corpus, haveShared } from '../support/shared.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fs-outcome-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function scanBytes(name: string, data: Buffer) {
  const image = join(dir, name);
  await writeFile(image, data);
  return scan(image, { workDir: join(dir, 'work') });
}

/** Text that compresses well and is not itself any format. */
const text = (bytes: number) => Buffer.from('the quick brown fox jumps over the lazy dog 0123456789\n'.repeat(Math.ceil(bytes / 55))).subarray(0, bytes);

/** The start of an ELF file (the analysers read an ELF on its own). */
function elfWith(...parts: Buffer[]): Buffer {
  const header = Buffer.alloc(64);
  Buffer.from('7f454c46010101', 'hex').copy(header);
  return Buffer.concat([header, ...parts, Buffer.alloc(64)]);
}

describe('scan outcome', () => {
  it('a truncated gzip ends complete=false with the reason, and an error-level problem', async () => {
    const whole = gzipSync(pseudoRandom(200_000, 1));
    const result = await scanBytes('broken.gz', whole.subarray(0, 120_000));
    expect(result.summary!.complete).toBe(false);
    expect(result.summary!.incompleteReasons).toEqual([expect.stringMatching(/^broken\.gz at 0: gzip: truncated stream/)]);
    expect(result.summary!.problems).toEqual({ info: 0, warning: 0, error: 1 });
    expect(result.problems.every((p) => p.level !== undefined)).toBe(true);
  });

  it('a truncated xz ends complete=false, and the reason says truncated (liblzma: "No progress is possible")', async () => {
    const packed = execFileSync('xz', ['-c'], { input: pseudoRandom(300_000, 2) });
    const result = await scanBytes('broken.xz', packed.subarray(0, 150_000));
    expect(result.summary!.complete).toBe(false);
    expect(result.summary!.incompleteReasons).toEqual([expect.stringMatching(/^broken\.xz at 0: xz: truncated stream/)]);
  });

  it('a complete gzip is complete, with formats, extracted files, coverage and phase times', async () => {
    const result = await scanBytes('ok.gz', gzipSync(pseudoRandom(25_000, 3).toString('hex')));
    expect(result.summary).toMatchObject({ complete: true, incompleteReasons: [], formats: { gzip: 1 }, filesExtracted: 1, bytesExtracted: 50_000, coverage: 1 });
    expect(Object.keys(result.summary!.phases).slice(0, 2)).toEqual(['hash', 'unpack']);
    expect(result.summary!.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('coverage is the share of the image inside recognised chunks', async () => {
    const gz = gzipSync(pseudoRandom(5000, 4).toString('hex'));
    const result = await scanBytes('half.bin', Buffer.concat([pseudoRandom(gz.length, 5), gz]));
    expect(result.summary!.coverage).toBeCloseTo(0.5, 5);
  });

  it('a plain text file is refused: no known firmware format, and it says what it looks like', async () => {
    const error = await scanBytes('notes.txt', text(3000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnrecognisedImageError);
    expect(isEngineError(error)).toBe(true);
    expect((error as Error).message).toBe('no known firmware format; the file looks like ASCII text');
  });

  it('random data and an empty file are refused too', async () => {
    await expect(scanBytes('noise.bin', pseudoRandom(4096, 6))).rejects.toThrow('no known firmware format; the file looks like binary data of no known format');
    await expect(scanBytes('empty.bin', Buffer.alloc(0))).rejects.toThrow('no known firmware format; the file is empty');
  });

  it('a shell script is analysable on its own and stays complete', async () => {
    const result = await scanBytes('start.sh', Buffer.from('#!/bin/sh\necho hello\n'));
    expect(result.summary!.complete).toBe(true);
  });

  it('a zstd candidate inside an ELF that is not a zstd frame is info, not an error', async () => {
    // magic, single-segment frame header with a 1-byte size, then a block of the reserved type 3
    const fakeZstd = Buffer.from('28b52ffd2005060000', 'hex');
    const result = await scanBytes('prog', elfWith(text(300), fakeZstd, text(300)));
    const zstd = result.problems.filter((p) => p.source === 'zstd');
    expect(zstd).toEqual([expect.objectContaining({ level: 'info', message: 'zstd: reserved block type' })]);
    expect(result.summary).toMatchObject({ complete: true, problems: { info: 1, warning: 0, error: 0 } });
  });

  it('a zlib candidate inside an ELF whose stream breaks is info, not an error', async () => {
    const stream = deflateSync(pseudoRandom(64 * 1024, 7));
    const result = await scanBytes('prog', elfWith(stream.subarray(0, 4000)));
    const zlib = result.problems.filter((p) => p.source === 'zlib');
    expect(zlib.length).toBeGreaterThan(0);
    expect(zlib.map(levelOf)).toEqual(zlib.map(() => 'info'));
    expect(result.summary!.complete).toBe(true);
  });

  it('the same broken zstd frame at the start of a file is an error: the file claims the format', async () => {
    const result = await scanBytes('data.zst', Buffer.concat([Buffer.from('28b52ffd2005060000', 'hex'), text(100)]));
    expect(result.summary!.complete).toBe(false);
    expect(result.summary!.incompleteReasons).toEqual(['data.zst at 0: zstd: reserved block type']);
  });

  it.runIf(haveShared('corpus', 'trendnet-tew733gr-rootfs.squashfs'))('a truncated corpus SquashFS is incomplete and says why', async () => {
    const image = await readFile(corpus('trendnet-tew733gr-rootfs.squashfs'));
    const result = await scanBytes('rootfs.squashfs', image.subarray(0, 1_500_000));
    expect(result.summary!.complete).toBe(false);
    expect(result.summary!.incompleteReasons[0]).toMatch(/^rootfs\.squashfs at 0: squashfs-v4: truncated: SquashFS says 3647665 bytes, only 1500000 available/);
  });

  // an ELF, a PE, a PEM key and a PKCS#12 file (typed 'data': its certificate and key make it analysable)
  for (const name of ['busybox-mipsel', 'nmap.exe', 'ssl.key', 'pkcs12.p12']) {
    it.runIf(haveShared('corpus', name))(`corpus ${name} alone is analysable: done and complete`, async () => {
      const result = await scan(corpus(name), { workDir: join(dir, 'work') });
      expect(result.summary).toMatchObject({ complete: true, incompleteReasons: [], problems: { error: 0 } });
    });
  }
});

describe('summarise', () => {
  it('lists each distinct error once, at most ten, and counts the rest', async () => {
    const { summarise } = await import('../../src/engine/problems.js');
    const problems = [
      ...Array.from({ length: 12 }, (_, i) => ({ source: 'sink', path: `f${i}`, kind: 'limit' as const, message: 'not extracted' })),
      { source: 'sink', path: 'f0', kind: 'limit' as const, message: 'not extracted' },
      { source: 'lzma', kind: 'warning' as const, message: 'may be truncated' },
      { source: 'zstd', path: 'x', offset: 9, kind: 'error' as const, level: 'info' as const, message: 'zstd: reserved block type' },
    ];
    const summary = summarise({ problems, filesExtracted: 0, bytesExtracted: 0, formats: {}, imageSize: 0, coveredBytes: 0, phases: {}, durationMs: 0 });
    expect(summary.problems).toEqual({ info: 1, warning: 1, error: 13 });
    expect(summary.incompleteReasons).toHaveLength(11);
    expect(summary.incompleteReasons[0]).toBe('f0: sink: not extracted');
    expect(summary.incompleteReasons[10]).toBe("and 2 more error(s); see the scan's problems");
    expect(summary.coverage).toBe(0);
  });
});
