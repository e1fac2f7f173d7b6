// The engine's threads start with a floor under their old generation's limit (src/engine/thread-heap.ts), unless
// node was started with an old-generation flag of the operator's own.
import { describe, expect, it } from 'vitest';
import { useEngineThreadHeap } from '../../src/engine/thread-heap.js';

describe('useEngineThreadHeap', () => {
  it('sets the floor for threads started later', () => {
    expect(useEngineThreadHeap([])).toBe(true);
    expect(useEngineThreadHeap(['--enable-source-maps', '--import', 'tsx'])).toBe(true);
  });

  it("leaves an operator's own old-generation size alone", () => {
    for (const flag of ['--max-old-space-size=300', '--initial-old-space-size=32', '--initial_heap_size=64', '--max-heap-size=512']) {
      expect(useEngineThreadHeap([flag])).toBe(false);
    }
  });
});
