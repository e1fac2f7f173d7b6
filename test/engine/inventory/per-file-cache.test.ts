// A per-file identifier's whole output comes back from the analysis cache: its candidates, and the binary facts
// and notes it recorded for the file (the ELF identifier's architecture and DT_NEEDED feed dependencies).
import { afterAll, describe, expect, it } from 'vitest';
import { FileFacetCache } from '../../../src/engine/analysis-cache.js';
import { FileIndex } from '../../../src/engine/file-index.js';
import type { Identifier } from '../../../src/engine/inventory/identifier.js';
import { createInventoryAnalyzer } from '../../../src/engine/inventory/inventory.analyzer.js';
import { MemoryCache } from '../../support/memory-cache.js';
import { fixtureTrees, runInventory } from './support.js';

const trees = fixtureTrees('firmscope-per-file-cache-');
afterAll(() => trees.cleanup());

/** Records facts and a note for every file, and counts its calls. */
function recordingIdentifier(): Identifier & { calls: number } {
  const identifier = {
    id: 'recording',
    description: 'test',
    perFile: true,
    calls: 0,
    selects: () => true,
    async identify(file: Parameters<Identifier['identify']>[0], ctx: Parameters<Identifier['identify']>[1]) {
      identifier.calls++;
      ctx.binaries.set(file.node.path, { architecture: 'mips', needed: ['libc.so.0'] });
      ctx.note({ path: file.node.path, kind: 'skipped', message: `looked at ${file.node.fsPath}` });
      return [];
    },
  };
  return identifier;
}

describe('per-file identifier output in the analysis cache', () => {
  it('gives back the binary facts and notes with the candidates, for the file at its new path', async () => {
    const root = trees.tree({ 'a/bin/tool': 'some program', 'b/bin/tool': 'some program' });
    const identifier = recordingIdentifier();
    const analyzer = createInventoryAnalyzer([identifier]);
    const cache = new MemoryCache();
    const scan = async (path: string) => {
      const index = new FileIndex(root, [{ path, fsPath: '/bin/tool', kind: 'file', size: 12, type: 'data', depth: 1, sha256: 'f'.repeat(64) }]);
      const fileCache = new FileFacetCache(cache);
      const ctx = await runInventory(index, analyzer, fileCache);
      await cache.put(fileCache.entries());
      return ctx;
    };
    const first = await scan('a/bin/tool');
    const second = await scan('b/bin/tool');
    expect(identifier.calls).toBe(1);
    expect(second.problems).toEqual([{ path: 'b/bin/tool', kind: 'skipped', message: 'looked at /bin/tool', source: 'recording' }]);
    expect(first.problems).toEqual([{ ...second.problems[0], path: 'a/bin/tool' }]);
  });
});
