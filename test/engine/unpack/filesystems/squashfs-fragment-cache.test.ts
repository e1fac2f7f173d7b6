// The SquashFS extraction's cache of decoded fragment blocks: each decoded once while kept, the next ones in the
// walk's order decoded ahead, a fault given to the file that asks (never an unhandled rejection), the oldest dropped.
import { describe, expect, it } from 'vitest';
import { FragmentCache, fragmentCapacity, fragmentOrder } from '../../../../src/engine/unpack/filesystems/squashfs/fragment-cache.js';

/** A decoder that records what it was asked to decode; `bad` indices reject. */
function decoder(bad: number[] = []) {
  const asked: number[] = [];
  const decode = async (index: number): Promise<Buffer> => {
    asked.push(index);
    if (bad.includes(index)) throw new Error(`fragment ${index} is damaged`);
    return Buffer.from([index]);
  };
  return { asked, decode };
}

describe('squashfs fragment cache', () => {
  it('orders fragments by first use, each once, without the files that have none', () => {
    const files = [3, -1, 3, 0, 5, 0, 1].map((fragment) => ({ inode: { fragment } }));
    expect(fragmentOrder(files)).toEqual([3, 0, 5, 1]);
  });

  it('decodes a fragment once and the next three in the walk order ahead', async () => {
    const { asked, decode } = decoder();
    const cache = new FragmentCache(decode, [9, 4, 7, 2, 8, 1]);
    expect((await cache.get(9))[0]).toBe(9);
    expect(asked).toEqual([9, 4, 7, 2]);
    expect((await cache.get(9))[0]).toBe(9);
    expect(asked).toEqual([9, 4, 7, 2]); // kept
    expect((await cache.get(4))[0]).toBe(4); // decoded ahead, and the read-ahead moves on
    expect(asked).toEqual([9, 4, 7, 2, 8]);
    await cache.get(7);
    expect(asked).toEqual([9, 4, 7, 2, 8, 1]);
    await cache.get(1);
    expect(asked).toEqual([9, 4, 7, 2, 8, 1]);
  });

  it('decodes only what is asked for without an order', async () => {
    const { asked, decode } = decoder();
    const cache = new FragmentCache(decode);
    await cache.get(5);
    await cache.get(5);
    expect(asked).toEqual([5]);
  });

  it('rejects a damaged fragment to the file that asks for it, not while decoding it ahead', async () => {
    const { decode } = decoder([2]);
    const cache = new FragmentCache(decode, [1, 2, 3]);
    await cache.get(1); // 2 is decoded ahead and fails: nothing unhandled
    await expect(cache.get(2)).rejects.toThrow('fragment 2 is damaged');
    expect((await cache.get(3))[0]).toBe(3);
  });

  it('keeps 16 MiB of fragments, at least 40', () => {
    expect(fragmentCapacity(128 * 1024)).toBe(128);
    expect(fragmentCapacity(1024 * 1024)).toBe(40);
    expect(fragmentCapacity(4096)).toBe(4096);
  });

  it('keeps at most 40 fragments by default, dropping the least recently used', async () => {
    const { asked, decode } = decoder();
    const cache = new FragmentCache(decode);
    for (let i = 0; i < 41; i++) await cache.get(i);
    await cache.get(40);
    await cache.get(1);
    expect(asked.filter((i) => i === 1)).toHaveLength(1);
    await cache.get(0); // dropped when the 41st came in
    expect(asked.filter((i) => i === 0)).toHaveLength(2);
  });
});
