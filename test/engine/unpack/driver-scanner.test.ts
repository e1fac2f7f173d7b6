import { describe, expect, it } from 'vitest';
import type { Handler } from '../../../src/engine/unpack/handler.js';
import { BufferReader } from '../../../src/engine/unpack/reader.js';
import { anchorOf, SignatureScanner } from '../../../src/engine/unpack/scanner.js';

const handler = (id: string, magic: string, offset = 0, extra: Partial<Handler> = {}): Handler => ({
  id,
  kind: 'archive',
  doc: { title: id, references: [] },
  magics: [{ bytes: Buffer.from(magic, 'latin1'), offset }],
  chunk: async () => null,
  ...extra,
});

async function collect(scanner: SignatureScanner, data: Buffer, skip: (start: number) => number = () => 0) {
  const out: Array<[number, string]> = [];
  let consumed = 0;
  for await (const c of scanner.candidates(new BufferReader(data), () => consumed)) {
    out.push([c.start, c.handler.id]);
    consumed = Math.max(consumed, skip(c.start));
  }
  return out;
}

describe('signature scanner', () => {
  it('finds magics across window edges, with magic offsets, in start order', async () => {
    const W = 4 * 1024 * 1024;
    const data = Buffer.alloc(W * 2 + 100);
    data.write('MAGIC', W - 2, 'latin1'); // straddles the first window edge
    data.write('ustar', W + 10, 'latin1'); // tar-like: chunk starts 257 bytes earlier
    data.write('MAGIC', 5, 'latin1');
    data.write('MAGIC', data.length - 5, 'latin1'); // at the very end
    const found = await collect(new SignatureScanner([handler('m', 'MAGIC'), handler('t', 'ustar', 257)]), data);
    expect(found).toEqual([
      [5, 'm'],
      [W + 10 - 257, 't'],
      [W - 2, 'm'],
      [data.length - 5, 'm'],
    ]);
  });

  it('orders candidates at one start by confidence, then registry order, and honours onlyAtStart', async () => {
    const data = Buffer.from('ABCDxxABCD');
    const scanner = new SignatureScanner([
      handler('low', 'ABCD', 0, { confidence: 10 }),
      handler('high', 'ABCD', 0, { confidence: 90 }),
      handler('start-only', 'AB', 0, { onlyAtStart: true }),
    ]);
    expect(await collect(scanner, data)).toEqual([
      [0, 'high'],
      [0, 'start-only'], // default confidence 50
      [0, 'low'],
      [6, 'high'],
      [6, 'low'],
    ]);
  });

  it('skips what lies inside a consumed chunk', async () => {
    const data = Buffer.from('ABCD..ABCD..ABCD');
    const found = await collect(new SignatureScanner([handler('a', 'ABCD')]), data, (start) => (start === 0 ? 12 : start));
    expect(found).toEqual([
      [0, 'a'],
      [12, 'a'],
    ]);
  });

  it('looks magics up by their rarest byte pair, so runs of zeros cost no comparisons', () => {
    expect(anchorOf(Buffer.from('00000001545000', 'hex'))).toBe(3); // 01 54, not 00 00
    expect(anchorOf(Buffer.from('5d0000', 'hex'))).toBe(0);
    expect(anchorOf(Buffer.from('hsqs', 'latin1'))).toBe(0);
  });

  it('finds a magic anchored past its start wherever a window edge falls', async () => {
    const W = 4 * 1024 * 1024;
    const magic = '\0\0\0\x01TP-LINK';
    const scanner = new SignatureScanner([handler('tp', magic)]);
    for (const at of [0, 7, W - 4, W - 3, W - 1, W, W + 1, 2 * W - 2]) {
      const data = Buffer.alloc(2 * W + 64);
      data.write(magic, at, 'latin1');
      data.write(magic.slice(0, 5), W + 40, 'latin1'); // a partial magic is no match
      expect(await collect(scanner, data), `magic at ${at}`).toEqual([[at, 'tp']]);
    }
  });
});
