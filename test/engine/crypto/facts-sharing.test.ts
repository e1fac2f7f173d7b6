// The crypto stage's files shared with the crypto facts thread, from the analysis's start (Analyzer.start) or from
// its turn: the same assets, findings and problems as the engine's thread alone, whoever computed each file and
// whenever; a file the thread fails on is computed again here; a cancelled scan stops both.
import { generateKeyPairSync } from 'node:crypto';
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { AES_SBOX } from '../../../src/engine/crypto/constants/aes.js';
import { createCryptoAnalyzer } from '../../../src/engine/crypto/analyzer.js';
import { shareFacts, type SharedFacts } from '../../../src/engine/crypto/facts-sharing.js';
import { cryptoFileFacts } from '../../../src/engine/crypto/file-facts.js';
import type { AnalysisContext } from '../../../src/engine/analyzer.js';
import { FileIndex } from '../../../src/engine/file-index.js';
import { corpus, haveShared } from '../../support/shared.js';
import { analyze, pseudoRandom, tempDir } from './support.js';

/** Files with keys, certificates, constant tables and plain noise; corpus binaries where ../shared is present. */
async function files(dir: string): Promise<string[]> {
  const names: string[] = [];
  for (let i = 0; i < 40; i++) {
    const key = generateKeyPairSync('ec', { namedCurve: i % 2 ? 'prime256v1' : 'secp384r1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const parts = [pseudoRandom(1000 + i * 97, i + 1), i % 3 === 0 ? Buffer.from(AES_SBOX) : Buffer.alloc(0), i % 4 === 0 ? Buffer.from(key) : Buffer.alloc(0), pseudoRandom(300, i + 50)];
    await writeFile(join(dir, `f${i}.bin`), Buffer.concat(parts));
    names.push(`f${i}.bin`);
  }
  for (const name of ['busybox-mipsel', 'ssl.key', 'pkcs12.p12', 'OVMF_VARS.secboot.fd']) {
    if (!haveShared('corpus', name)) continue;
    await copyFile(corpus(name), join(dir, name));
    names.push(name);
  }
  return names;
}

/** Runs `test` on the files above, analysed by the engine's thread alone, in a temp folder removed afterwards. */
async function withAnalysed(test: (files: { dir: string; names: string[]; alone: AnalysisContext }) => Promise<void>): Promise<void> {
  const { dir, cleanup } = await tempDir();
  try {
    const names = await files(dir);
    await test({ dir, names, alone: await analyze(dir, names, { shareFromBytes: Infinity }) });
  } finally {
    await cleanup();
  }
}

describe('crypto facts shared with a thread', () => {
  it('computes on the thread, from the files on disk, the facts the engine thread computes from the index', async () => {
    await withAnalysed(async ({ alone: ctx }) => {
      const nodes = ctx.index.files();
      const now = new Date('2026-11-22T00:00:00Z');
      const shared = shareFacts(ctx.index, nodes, now);
      try {
        await shared.answered; // nothing claimed here first: the thread took every file
        for (const node of nodes) {
          const reader = await ctx.index.reader(node);
          const here = await cryptoFileFacts({ path: node.path, size: node.size, encoded: [] }, reader.read, now);
          await reader.close();
          expect(await shared.take(node), node.path).toEqual(here);
        }
      } finally {
        shared.end();
      }
    });
  });

  it('gives what the engine thread alone gives, whoever computed each file', async () => {
    await withAnalysed(async ({ dir, names, alone }) => {
      const shared = await analyze(dir, names, { shareFromBytes: 0 });
      expect(alone.cryptoAssets.length).toBeGreaterThan(10);
      expect(shared.cryptoAssets).toEqual(alone.cryptoAssets);
      expect(shared.findings).toEqual(alone.findings);
      expect(shared.problems).toEqual(alone.problems);
    });
  });

  it('computes here what the thread could not, and reports a file neither can read once', async () => {
    await withAnalysed(async ({ dir, alone: ctx }) => {
      // the last files are the thread's first: one of them is gone from the disk
      const nodes = [...ctx.index.nodes, { path: 'gone.bin', fsPath: '/gone.bin', kind: 'file' as const, size: 10, type: 'data', depth: 0 }];
      const broken = { ...ctx, index: new FileIndex(dir, nodes), cryptoAssets: [], findings: [], problems: [], components: [] };
      await createCryptoAnalyzer({ now: () => new Date('2026-11-22T00:00:00Z'), shareFromBytes: 0 }).run(broken);
      expect(broken.problems).toEqual([expect.objectContaining({ path: 'gone.bin', source: 'crypto', kind: 'error' })]);
      expect(broken.cryptoAssets).toEqual(ctx.cryptoAssets);
    });
  });

  it('begins on the thread when the analysis starts, and its turn gives what the engine thread alone gives', async () => {
    await withAnalysed(async ({ alone }) => {
      const analyzer = createCryptoAnalyzer({ now: () => new Date('2026-11-22T00:00:00Z'), shareFromBytes: 0 });
      const ctx: AnalysisContext = { ...alone, cryptoAssets: [], findings: [], problems: [], begun: new Map() };
      analyzer.start!(ctx);
      const begun = ctx.begun!.get('crypto') as { prepared: Promise<{ shared?: SharedFacts }> };
      const { shared } = await begun.prepared;
      await shared!.answered; // the thread has answered for every file before the stage's turn
      await analyzer.run(ctx);
      expect(ctx.begun!.has('crypto')).toBe(false);
      expect(alone.cryptoAssets.length).toBeGreaterThan(10);
      expect(ctx.cryptoAssets).toEqual(alone.cryptoAssets);
      expect(ctx.findings).toEqual(alone.findings);
      expect(ctx.problems).toEqual(alone.problems);
    });
  });

  it('ends the thread it began when the scan is cancelled before the stage turn', async () => {
    await withAnalysed(async ({ alone }) => {
      const controller = new AbortController();
      const ctx: AnalysisContext = { ...alone, cryptoAssets: [], findings: [], problems: [], begun: new Map(), signal: controller.signal };
      createCryptoAnalyzer({ shareFromBytes: 0 }).start!(ctx);
      const { shared } = await (ctx.begun!.get('crypto') as { prepared: Promise<{ shared?: SharedFacts }> }).prepared;
      const end = vi.fn(shared!.end);
      shared!.end = end;
      controller.abort(new Error('cancelled'));
      await vi.waitFor(() => expect(end).toHaveBeenCalledOnce());
      await shared!.answered; // what the thread still held is answered (null): nothing waits on it
    });
  });

  it('stops when the scan is cancelled during the stage', async () => {
    await withAnalysed(async ({ alone: ctx }) => {
      const controller = new AbortController();
      let calls = 0;
      const run = createCryptoAnalyzer({ shareFromBytes: 0 }).run({
        ...ctx,
        cryptoAssets: [],
        findings: [],
        problems: [],
        signal: controller.signal,
        progress: () => {
          if (++calls === 5) controller.abort(new Error('cancelled'));
        },
    });
    await expect(run).rejects.toThrow('cancelled');
    });
  });
});
