import { describe, expect, it } from 'vitest';
import { lz4LegacyHandler } from '../../../../src/engine/unpack/compression/lz4-legacy.js';
import { compressibleBytes } from '../../../support/bytes.js';
import { extractFiles } from '../extract-harness.js';
import { compressWith } from '../handler-harness.js';
import { compressionCases } from './compression-cases.js';

describe('lz4-legacy handler', () => {
  compressionCases(lz4LegacyHandler, (data) => compressWith('lz4', ['-l', '-c'], data));

  it('ends before a trailing size word, as in Linux kernel images', async () => {
    const data = compressibleBytes(20_000);
    const packed = compressWith('lz4', ['-l', '-c'], data);
    const trailer = Buffer.alloc(4);
    trailer.writeUInt32LE(data.length);
    const run = await extractFiles(lz4LegacyHandler, Buffer.concat([packed, trailer]));
    expect(run.chunk).toMatchObject({ start: 0, end: packed.length });
    expect(Object.values(run.files)[0]?.equals(data)).toBe(true);
  });
});
