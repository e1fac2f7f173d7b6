import { describe, expect, it } from 'vitest';
import { rtimeDecompress } from '../../../../src/engine/unpack/codecs/rtime.js';
import { FormatError } from '../../../../src/engine/format-error.js';

describe('rtime', () => {
  it('copies runs from the previous position of the same byte, overlapping included', () => {
    expect(rtimeDecompress(Buffer.from([0x61, 3]), 4).toString()).toBe('aaaa');
    expect(rtimeDecompress(Buffer.from([0x61, 0, 0x62, 0, 0x61, 1]), 4).toString()).toBe('abab');
  });

  it('refuses truncated input and repeats past the output', () => {
    expect(() => rtimeDecompress(Buffer.from([0x61, 0]), 4)).toThrow(FormatError);
    expect(() => rtimeDecompress(Buffer.from([0x61, 200]), 4)).toThrow(/overruns/);
  });
});
