// The rules that judge each file by its bytes and path alone (embedded tokens, password assignments) keep their
// findings in the analysis cache by file (WeaknessContext.perFile): the next version of an image, whose tree paths
// differ, gets the same findings with its own paths without reading those files again.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileFacetCache } from '../../../src/engine/analysis-cache.js';
import type { AnalysisContext } from '../../../src/engine/analyzer.js';
import { FileIndex } from '../../../src/engine/file-index.js';
import { createWeaknessesAnalyzer } from '../../../src/engine/weaknesses/weaknesses.analyzer.js';
import { embeddedTokenRule } from '../../../src/engine/weaknesses/embedded-token.rule.js';
import { passwordAssignmentRule } from '../../../src/engine/weaknesses/password-assignment.rule.js';
import { MemoryCache } from '../../support/memory-cache.js';
import { fixture } from './support.js';

const FILES = {
  'usr/bin/uploader.sh': `#!/bin/sh\nAWS_ACCESS_KEY_ID=${'AKIA' + 'Q3EGDJ7HPLMRN2XW'}\nAWS_SECRET_ACCESS_KEY=${'wJalrXUtnFEMI/K7MDENG/bPxRfiCY' + 'Q3EGDJ7HPL'}\n`,
  'etc/config/wireless': "config wifi-iface\n\toption password 'Sup3rS3cret'\n",
  'etc/motd': 'nothing to see\n',
};

/** The fixture under `prefix`, its files hashed as the unpacker would. */
function tree(prefix: string): FileIndex {
  const index = fixture(FILES, prefix);
  const nodes = index.nodes.map((n) => (n.kind === 'file' ? { ...n, sha256: createHash('sha256').update(readFileSync(join(index.root, n.path))).digest('hex') } : n));
  return new FileIndex(index.root, nodes);
}

async function run(index: FileIndex, fileCache: FileFacetCache): Promise<AnalysisContext> {
  const ctx: AnalysisContext = {
    image: { fileName: 'fixture', size: 0, hashes: { sha256: '', sha1: '', md5: '' }, type: 'data' },
    index, components: [], findings: [], cryptoAssets: [], problems: [], fileCache,
    signal: new AbortController().signal, progress: () => {},
  };
  await createWeaknessesAnalyzer([embeddedTokenRule, passwordAssignmentRule]).run(ctx);
  return ctx;
}

describe('per-file weakness findings in the analysis cache', () => {
  it('gives the next tree the same findings with its own paths, from the cache', async () => {
    const memory = new MemoryCache();
    const first = new FileFacetCache(memory, 'engine');
    const cold = await run(tree('v1.bin_extract/0-100.squashfs-v4'), first);
    expect(cold.findings.map((f) => f.pname).sort()).toEqual(['embedded-token', 'password-assignment']);
    expect(first.filesAnalysed).toBe(6); // three files, two rules
    await memory.put(first.entries());

    const next = new FileFacetCache(memory, 'engine');
    const warm = await run(tree('v2.bin_extract/0-200.squashfs-v4'), next);
    expect(next.filesReused).toBe(6);
    expect(next.filesAnalysed).toBe(0);
    const rename = (json: string) => json.replaceAll('v1.bin_extract/0-100', 'v2.bin_extract/0-200');
    expect(JSON.stringify(warm.findings)).toBe(rename(JSON.stringify(cold.findings)));
    expect(warm.findings.flatMap((f) => f.occurrences.map((o) => o.path)).every((p) => p.startsWith('v2.bin_extract/'))).toBe(true);
  });
});
