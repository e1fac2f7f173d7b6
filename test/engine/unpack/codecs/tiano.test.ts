import { describe, expect, it } from 'vitest';
import { tianoDecompress } from '../../../../src/engine/unpack/codecs/tiano.js';
import { FormatError } from '../../../../src/engine/format-error.js';
import { tianoCompress } from '../boot/tiano-encoder.js';

const sample = Buffer.concat([
  Buffer.from('UEFI driver image '.repeat(300)),
  Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 7919) % 251)),
  Buffer.alloc(70000, 0), // long runs: many blocks of maximal matches
]);

describe('codecs-tiano', () => {
  it('decodes EFI and Tiano streams', () => {
    for (const variant of ['efi', 'tiano'] as const) {
      const packed = tianoCompress(sample, variant);
      expect(packed.length).toBeLessThan(sample.length / 3);
      expect(tianoDecompress(packed, variant, 1 << 20)).toEqual(sample);
    }
  });

  it('rejects truncated, oversized and corrupt streams with a reason', () => {
    const packed = tianoCompress(sample, 'tiano');
    expect(() => tianoDecompress(packed.subarray(0, 5), 'tiano', 1 << 20)).toThrow(/8-byte header/);
    expect(() => tianoDecompress(packed.subarray(0, 100), 'tiano', 1 << 20)).toThrow(/truncated/);
    expect(() => tianoDecompress(packed, 'tiano', 1000)).toThrow(/exceeds the limit/);
    // The other variant reads the position table with the wrong width: never a crash, only a FormatError or junk.
    const wrong = (() => {
      try {
        return tianoDecompress(packed, 'efi', 1 << 20);
      } catch (error) {
        return error;
      }
    })();
    expect(wrong instanceof FormatError || !(wrong as Buffer).equals(sample)).toBe(true);
    for (let i = 0; i < 200; i++) {
      const corrupt = Buffer.from(packed);
      corrupt[8 + ((i * 37) % (packed.length - 8))] ^= 1 << i % 8;
      try {
        tianoDecompress(corrupt, 'tiano', 1 << 20);
      } catch (error) {
        expect(error).toBeInstanceOf(FormatError);
      }
    }
  });
});
