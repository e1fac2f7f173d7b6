import { describe, expect, it } from 'vitest';
import { byteSize } from '../../src/format/byte-size.js';
import { byteSizeWithCount } from '../../src/reports/report-labels.js';

describe('byte sizes', () => {
  it('counts in binary units with one decimal, bytes as they are', () => {
    expect(byteSize(0)).toBe('0 B');
    expect(byteSize(1023)).toBe('1023 B');
    expect(byteSize(1024)).toBe('1.0 KiB');
    expect(byteSize(3932405)).toBe('3.8 MiB');
    expect(byteSize(64 * 1024 ** 3)).toBe('64.0 GiB');
    expect(byteSize(3 * 1024 ** 5)).toBe('3072.0 TiB');
  });

  it('gives reports the exact count beside the unit', () => {
    expect(byteSizeWithCount(512)).toBe('512 bytes');
    expect(byteSizeWithCount(3932405)).toBe('3.8 MiB (3,932,405 bytes)');
  });
});
