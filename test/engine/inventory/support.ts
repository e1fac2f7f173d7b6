// Test helpers for the inventory: fixture folders in temp dirs, a FileIndex over one file read in place, and a run
// of the inventory analyzer (or a given analyzer) over an index.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FileFacetCache } from '../../../src/engine/analysis-cache.js';
import type { AnalysisContext, Analyzer } from '../../../src/engine/analyzer.js';
import { FileIndex } from '../../../src/engine/file-index.js';
import { createInventoryAnalyzer } from '../../../src/engine/inventory/inventory.analyzer.js';

/** Runs `analyzer` (the full inventory by default) over `index` and returns the filled context. */
export async function runInventory(index: FileIndex, analyzer: Analyzer = createInventoryAnalyzer(), fileCache?: FileFacetCache): Promise<AnalysisContext> {
  const ctx: AnalysisContext = {
    image: { fileName: 'fixture', size: 0, hashes: { sha256: '', sha1: '', md5: '' }, type: 'data' },
    index,
    components: [],
    findings: [],
    cryptoAssets: [],
    problems: [],
    fileCache,
    signal: new AbortController().signal,
    progress: () => {},
  };
  await analyzer.run(ctx);
  return ctx;
}

/** Inventories every file under `root`. */
export async function inventoryOfDirectory(root: string): Promise<AnalysisContext> {
  return runInventory(await FileIndex.fromDirectory(root));
}

/** A FileIndex holding only the file `name` of `root` (e.g. a corpus file read in place). */
export function singleFileIndex(root: string, name: string, size: number): FileIndex {
  return new FileIndex(root, [{ path: name, fsPath: `/${name}`, kind: 'file', size, type: 'data', depth: 0 }]);
}

/** Temp fixture folders: `tree(files)` writes path → content into a new folder; `cleanup()` removes them all. */
export function fixtureTrees(prefix: string): { tree(files?: Record<string, string | Buffer>): string; cleanup(): void } {
  const roots: string[] = [];
  return {
    tree(files = {}) {
      const root = mkdtempSync(join(tmpdir(), prefix));
      roots.push(root);
      for (const [path, content] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), content);
      }
      return root;
    },
    cleanup: () => roots.splice(0).forEach((r) => rmSync(r, { recursive: true, force: true })),
  };
}
