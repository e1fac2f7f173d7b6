// The analysis cache's keys (src/engine/analysis-cache.ts cacheKey): the SHA-256 of each part followed by a NUL.
// Kept exactly: a key made another way would miss every entry the caches already hold.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cacheKey } from '../../src/engine/analysis-cache.js';

describe('cacheKey', () => {
  it('hashes each part followed by a NUL', () => {
    const parts = ['file', 'crypto', 'engine', 'max-size 1024', 'a'.repeat(64), '/usr/lib/libssl.so.3', 'libssl.so.3', 'inner'];
    const expected = createHash('sha256');
    for (const part of parts) expected.update(part).update('\0');
    expect(cacheKey(...parts)).toBe(expected.digest('hex'));
    expect(cacheKey('a', 'b')).not.toBe(cacheKey('ab'));
    expect(cacheKey('é')).toBe(createHash('sha256').update('é\0', 'utf8').digest('hex'));
  });
});
