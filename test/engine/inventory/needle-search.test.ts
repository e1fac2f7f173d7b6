// The version signatures' literal needle search must report exactly what the combined regex it replaced reported
// (all needles, longest first, restarted one byte after each match): same positions, same needle at each.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NeedleSearch } from '../../../src/engine/inventory/signature.js';
import { signatures } from '../../../src/engine/inventory/signatures/index.js';

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The former matcher: one alternation of every needle, longest first, over the latin1 text. */
function byRegex(needles: string[], data: Buffer): string[] {
  const re = new RegExp([...needles].sort((a, b) => b.length - a.length).map(escape).join('|'), 'g');
  const text = data.toString('latin1');
  const out: string[] = [];
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push(`${m.index}:${m[0]}`);
    re.lastIndex = m.index + 1;
  }
  return out;
}

function bySearch(needles: string[], data: Buffer): string[] {
  const out: string[] = [];
  new NeedleSearch(needles).scan(data, (index, needle) => out.push(`${index}:${needle}`));
  return out;
}

/** Deterministic pseudo-random bytes (xorshift), biased towards the needles' bytes so that hits are frequent. */
function noise(length: number, alphabet: Buffer, seed: number): Buffer {
  let x = seed >>> 0 || 1;
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = (x & 3) === 0 ? (x >>> 8) & 0xff : alphabet[(x >>> 8) % alphabet.length]!;
  }
  return out;
}

describe('signature needle search', () => {
  const needles = [...new Set(signatures.flatMap((s) => s.patterns.map((p) => p.needle)))];

  it('finds overlapping needles and prefers the longest at one position', () => {
    const set = ['abc', 'abcde', 'bcd', 'cd\0x', 'zz'];
    const data = Buffer.from('xxabcdeabcd\0xzzz', 'latin1');
    expect(bySearch(set, data)).toEqual(['2:abcde', '3:bcd', '7:abc', '8:bcd', '9:cd\0x', '13:zz', '14:zz']);
    expect(bySearch(set, data)).toEqual(byRegex(set, data));
  });

  it('handles one-byte needles like the regex, at the last byte too', () => {
    const set = ['a', 'ab', 'b\0', 'x'];
    for (const text of ['xaba', 'ab\0ba', 'a', 'b', '', 'xx', 'bab\0a\0x']) {
      const data = Buffer.from(text, 'latin1');
      expect(bySearch(set, data), JSON.stringify(text)).toEqual(byRegex(set, data));
    }
    expect(bySearch(set, Buffer.from('xaba', 'latin1'))).toEqual(['0:x', '1:ab', '3:a']);
  });

  it('matches a needle ending at the last byte and never reads past the end', () => {
    const set = ['ab', 'abc'];
    expect(bySearch(set, Buffer.from('xab', 'latin1'))).toEqual(['1:ab']);
    expect(bySearch(set, Buffer.from('a', 'latin1'))).toEqual([]);
    expect(bySearch(set, Buffer.alloc(0))).toEqual([]);
  });

  it('looks past a pair only at the bytes its needles may go on with, a pair of two-byte and longer needles too', () => {
    const set = ['ab', 'abc', 'ab\0d', 'qrs', 'qrt'];
    for (const text of ['xab', 'abab\0', 'ab\0', 'ab\0d', 'abcab\0dab', 'qr', 'qrsqrtqru', 'qrq', 'xqr']) {
      const data = Buffer.from(text, 'latin1');
      expect(bySearch(set, data), JSON.stringify(text)).toEqual(byRegex(set, data));
    }
    expect(bySearch(set, Buffer.from('qruqrtab\0d', 'latin1'))).toEqual(['3:qrt', '6:ab\0d']);
  });

  it('agrees with the combined regex on the whole table over needle-rich noise', () => {
    const alphabet = Buffer.from(needles.join(''), 'latin1');
    for (let seed = 1; seed <= 20; seed++) {
      // Needles spliced into the noise at random places, some overlapping.
      const data = noise(20_000, alphabet, seed);
      for (let k = 0; k < 40; k++) {
        const needle = Buffer.from(needles[(seed * 97 + k * 31) % needles.length]!, 'latin1');
        needle.copy(data, (seed * 7919 + k * 503) % (data.length - needle.length));
      }
      const expected = byRegex(needles, data);
      expect(expected.length, `seed ${seed}`).toBeGreaterThan(20);
      expect(bySearch(needles, data)).toEqual(expected);
    }
  });

  it('agrees with the combined regex on real system binaries', () => {
    let compared = 0;
    for (const name of ['busybox', 'openssl', 'ssh', 'curl', 'node', 'python3', 'perl', 'bash', 'gpg', 'git']) {
      const path = join('/usr/bin', name);
      const st = statSync(path, { throwIfNoEntry: false });
      if (!st?.isFile()) continue;
      const data = readFileSync(path).subarray(0, 4 * 1024 * 1024);
      expect(bySearch(needles, data), name).toEqual(byRegex(needles, data));
      compared++;
    }
    expect(compared).toBeGreaterThan(0);
  });
});
