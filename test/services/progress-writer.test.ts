// The scan progress writer: at most one write per interval, and the latest update always written.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { progressWriter, type ScanProgress } from '../../src/services/progress-writer.js';

describe('progressWriter', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('writes the first update at once, and the last of a burst when the interval ends', async () => {
    const written: ScanProgress[] = [];
    const writer = progressWriter(async (p) => written.push(p), 1000);
    writer.update({ phase: 'hash', percent: 0 });
    writer.update({ phase: 'unpack', percent: 10 });
    writer.update({ phase: 'unpack', percent: 40 });
    expect(written).toEqual([{ phase: 'hash', percent: 0 }]);
    // nothing more arrives: the waiting update is still written (it used to be dropped, leaving 'hash 0%')
    await vi.advanceTimersByTimeAsync(1000);
    expect(written).toEqual([{ phase: 'hash', percent: 0 }, { phase: 'unpack', percent: 40 }]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(written).toHaveLength(2);
    // after a quiet spell an update is written at once again
    writer.update({ phase: 'crypto', percent: 5 });
    expect(written.at(-1)).toEqual({ phase: 'crypto', percent: 5 });
  });

  it('writes at most once per interval under a steady stream of updates', async () => {
    const written: ScanProgress[] = [];
    const writer = progressWriter(async (p) => written.push(p), 1000);
    for (let i = 0; i < 40; i++) {
      writer.update({ phase: 'unpack', percent: i });
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(written.length).toBeGreaterThanOrEqual(4);
    expect(written.length).toBeLessThanOrEqual(5);
    await vi.advanceTimersByTimeAsync(1000);
    expect(written.at(-1)).toEqual({ phase: 'unpack', percent: 39 });
  });

  it('writes nothing after stop, and a failed write is not thrown', async () => {
    const write = vi.fn(async () => {
      throw new Error('database gone');
    });
    const writer = progressWriter(write, 1000);
    writer.update({ phase: 'hash', percent: 0 });
    writer.update({ phase: 'unpack', percent: 50 });
    writer.stop();
    await vi.advanceTimersByTimeAsync(2000);
    writer.update({ phase: 'crypto', percent: 1 });
    expect(write).toHaveBeenCalledTimes(1);
  });
});
