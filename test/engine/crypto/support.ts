// Test helpers for the crypto analysis: run detectFile on a buffer, run the analyzer over chosen files of any
// folder (fixtures in a temp dir, or ../shared/corpus read in place), make temp folders.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnalysisContext } from '../../../src/engine/analyzer.js';
import { createCryptoAnalyzer } from '../../../src/engine/crypto/analyzer.js';
import { detectFile } from '../../../src/engine/crypto/detect-file.js';
import type { FileDetections } from '../../../src/engine/crypto/detections.js';
import { FileIndex } from '../../../src/engine/file-index.js';
import type { Component, FileNode } from '../../../src/engine/types.js';

export { pseudoRandom } from '../../support/bytes.js';

export const NOW = new Date('2026-11-22T00:00:00Z');

export async function detectBuffer(data: Buffer, now = NOW, chunk = 4096): Promise<FileDetections> {
  async function* chunks() {
    for (let i = 0; i < data.length; i += chunk) yield data.subarray(i, i + chunk);
  }
  const read = async (offset: number, length: number) => data.subarray(offset, offset + length);
  return detectFile('test.bin', chunks(), read, { now });
}

export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'firmscope-crypto-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs the crypto analyzer over `paths` (relative to `root`), as files of one scan. */
export async function analyze(
  root: string,
  paths: string[],
  options: {
    now?: Date;
    components?: Component[];
    nodes?: Partial<FileNode>[];
    encodedRanges?: Map<string, Array<[number, number]>>;
    /** createCryptoAnalyzer's: 0 shares every file with the crypto facts thread, Infinity none. */
    shareFromBytes?: number;
  } = {},
): Promise<AnalysisContext> {
  const nodes: FileNode[] = [];
  for (const [i, path] of paths.entries()) {
    const { size } = await stat(join(root, path));
    nodes.push({ path, fsPath: '/' + path, kind: 'file', size, type: 'data', depth: 1, ...options.nodes?.[i] });
  }
  const ctx: AnalysisContext = {
    image: { fileName: 'image.bin', size: 0, hashes: { sha256: '0'.repeat(64), sha1: '0'.repeat(40), md5: '0'.repeat(32) }, type: 'data' },
    index: new FileIndex(root, nodes, { encodedRanges: options.encodedRanges }),
    components: options.components ?? [],
    findings: [],
    cryptoAssets: [],
    problems: [],
    signal: new AbortController().signal,
    progress: () => {},
  };
  await createCryptoAnalyzer({ now: () => options.now ?? NOW, shareFromBytes: options.shareFromBytes }).run(ctx);
  return ctx;
}
