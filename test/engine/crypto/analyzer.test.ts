// The crypto analyzer over a scan's files: evidence in the innermost file, links to components, findings with
// stable fingerprints, contained failures.
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AES_SBOX } from '../../../src/engine/crypto/constants/aes.js';
import type { Component } from '../../../src/engine/types.js';
import { analyze, pseudoRandom, tempDir } from './support.js';

const key = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;

async function image(dir: string, keyOffset: number): Promise<void> {
  await mkdir(join(dir, 'fw.bin_extract'), { recursive: true });
  // The container holds the key (as extracted below) and an AES table that no child has.
  await writeFile(join(dir, 'fw.bin'), Buffer.concat([pseudoRandom(keyOffset), Buffer.from(key), pseudoRandom(500, 2), Buffer.from(AES_SBOX), pseudoRandom(100, 3)]));
  await writeFile(join(dir, 'fw.bin_extract/server.pem'), key);
}

const nodes = [{ depth: 0 }, { depth: 1, parent: 'fw.bin', fsPath: '/etc/server.pem' }];

describe('crypto analyzer', () => {
  it('reports a file only for what its extracted children do not already show', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await image(dir, 1000);
      const component: Component = { ref: 'lighttpd@1.4', name: 'lighttpd', version: '1.4', type: 'application', confidence: 1, paths: ['fw.bin_extract/server.pem'], evidence: [], foundBy: ['test'] };
      const ctx = await analyze(dir, ['fw.bin', 'fw.bin_extract/server.pem'], { nodes, components: [component] });
      const privateKey = ctx.cryptoAssets.find((a) => a.assetType === 'private-key')!;
      expect(privateKey.paths).toEqual(['fw.bin_extract/server.pem']);
      expect(privateKey.components).toEqual(['lighttpd@1.4']);
      expect(ctx.cryptoAssets.find((a) => a.name === 'AES')!.paths).toEqual(['fw.bin']);
      expect(ctx.findings.map((f) => f.pname).sort()).toEqual(['private-key-in-image', 'weak-key-size']);
      expect(ctx.findings.every((f) => f.findingType === 'knownVulnerability' && /^[0-9a-f]{32}$/.test(f.fingerprint))).toBe(true);
    } finally {
      await cleanup();
    }
  });

  it("passes over a container's encoded chunks: their content is searched in the extracted files", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await image(dir, 1000);
      // the AES table sits at 1000 + key + 500; an encoded chunk over it hides it, one before it does not
      const table = 1000 + key.length + 500;
      const over = await analyze(dir, ['fw.bin', 'fw.bin_extract/server.pem'], { nodes, encodedRanges: new Map([['fw.bin', [[table - 10, table + 300]]]]) });
      expect(over.cryptoAssets.find((a) => a.name === 'AES')).toBeUndefined();
      expect(over.cryptoAssets.find((a) => a.assetType === 'private-key')!.paths).toEqual(['fw.bin_extract/server.pem']);
      const before = await analyze(dir, ['fw.bin', 'fw.bin_extract/server.pem'], { nodes, encodedRanges: new Map([['fw.bin', [[0, 900]]]]) });
      expect(before.cryptoAssets.find((a) => a.name === 'AES')!.paths).toEqual(['fw.bin']);
    } finally {
      await cleanup();
    }
  });

  it('gives the same finding the same fingerprint in another image, wherever the key sits', async () => {
    const a = await tempDir();
    const b = await tempDir();
    try {
      await image(a.dir, 1000);
      await image(b.dir, 4321);
      const first = await analyze(a.dir, ['fw.bin', 'fw.bin_extract/server.pem'], { nodes });
      const second = await analyze(b.dir, ['fw.bin', 'fw.bin_extract/server.pem'], { nodes });
      expect(second.findings.map((f) => f.fingerprint).sort()).toEqual(first.findings.map((f) => f.fingerprint).sort());
    } finally {
      await a.cleanup();
      await b.cleanup();
    }
  });

  it('tells a key compiled into an executable from a key file', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const der = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'der' });
      await writeFile(join(dir, 'speed'), Buffer.concat([Buffer.from('\x7fELF', 'latin1'), pseudoRandom(3000), der, pseudoRandom(100, 2)]));
      const ctx = await analyze(dir, ['speed']);
      expect(ctx.findings).toEqual([expect.objectContaining({ pname: 'private-key-in-image', severity: 'medium', name: expect.stringContaining('compiled into an ELF executable') })]);
    } finally {
      await cleanup();
    }
  });

  it('records a file it cannot read as a problem and goes on', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await image(dir, 10);
      const ctx = await analyze(dir, ['fw.bin', 'fw.bin_extract/server.pem'], { nodes });
      // A node whose file vanished after indexing.
      const { FileIndex } = await import('../../../src/engine/file-index.js');
      const { createCryptoAnalyzer } = await import('../../../src/engine/crypto/analyzer.js');
      const broken = { ...ctx, index: new FileIndex(dir, [...ctx.index.nodes, { path: 'gone.bin', fsPath: '/gone.bin', kind: 'file' as const, size: 10, type: 'data', depth: 1 }]), cryptoAssets: [], findings: [], problems: [] };
      await createCryptoAnalyzer().run(broken);
      expect(broken.problems).toEqual([expect.objectContaining({ path: 'gone.bin', source: 'crypto', kind: 'error' })]);
      expect(broken.cryptoAssets.length).toBeGreaterThan(0);
    } finally {
      await cleanup();
    }
  });

  it('stops when the scan is cancelled', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await image(dir, 10);
      const ctx = await analyze(dir, ['fw.bin'], {});
      const controller = new AbortController();
      controller.abort();
      const { createCryptoAnalyzer } = await import('../../../src/engine/crypto/analyzer.js');
      await expect(createCryptoAnalyzer().run({ ...ctx, signal: controller.signal })).rejects.toThrow();
    } finally {
      await cleanup();
    }
  });
});
