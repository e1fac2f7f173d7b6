import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { zlibHandler } from '../../../../src/engine/unpack/compression/zlib.js';
import { extractFiles } from '../extract-harness.js';
import { compressionCases } from './compression-cases.js';

describe('zlib handler', () => {
  compressionCases(zlibHandler, (data) => zlib.deflateSync(data));

  it('refuses a header that fails the check value', async () => {
    expect((await extractFiles(zlibHandler, Buffer.from([0x78, 0x9d, 1, 2, 3]))).chunk).toBeNull();
  });

  it('refuses a stream whose Adler-32 does not match', async () => {
    const packed = zlib.deflateSync(Buffer.alloc(1000, 7));
    packed[packed.length - 1] ^= 0xff;
    const outcome = await extractFiles(zlibHandler, packed).then((r) => r.chunk, (e: unknown) => e);
    expect(outcome === null || (outcome instanceof Error && /zlib/.test(outcome.message))).toBe(true);
  });
});
