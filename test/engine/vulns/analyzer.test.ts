import { describe, expect, it } from 'vitest';
import type { AnalysisContext } from '../../../src/engine/analyzer.js';
import { analyzers } from '../../../src/engine/analyzers.js';
import type { Component } from '../../../src/engine/types.js';
import { MemoryVulnerabilitySource } from '../../../src/engine/vulns/memory-source.js';
import { vulnerabilityMatcherAnalyzer } from '../../../src/engine/vulns/vulnerability-matcher.analyzer.js';

const busybox: Component = {
  ref: 'busybox@1.31.1', name: 'busybox', version: '1.31.1', type: 'application', confidence: 1,
  cpe: 'cpe:2.3:a:busybox:busybox:1.31.1:*:*:*:*:*:*:*', paths: ['bin/busybox'], evidence: [], foundBy: ['t'],
};

function context(vulnerabilities?: AnalysisContext['vulnerabilities']): AnalysisContext & { seen: number[] } {
  const seen: number[] = [];
  return {
    image: { fileName: 'fw.bin', size: 1, hashes: { sha256: '', sha1: '', md5: '' }, type: 'data' },
    index: undefined as never, components: [busybox], findings: [], cryptoAssets: [], problems: [],
    ...(vulnerabilities ? { vulnerabilities } : {}), signal: new AbortController().signal, progress: (p) => seen.push(p), seen,
  };
}

describe('vulnerability-matcher analyzer', () => {
  it('runs after the inventory analyzer', () => {
    const ids = analyzers.map((a) => a.id);
    expect(ids.indexOf('vulnerability-matcher')).toBeGreaterThan(ids.indexOf('inventory'));
    expect(ids.indexOf('inventory')).toBeGreaterThanOrEqual(0);
  });

  it('adds nothing without a vulnerability source', async () => {
    const ctx = context();
    await vulnerabilityMatcherAnalyzer.run(ctx);
    expect(ctx.findings).toEqual([]);
  });

  it('adds findings and reports progress with a source', async () => {
    const source = new MemoryVulnerabilitySource();
    source.putRecord({ id: 'CVE-2021-42386', aliases: [], cwes: [], cvss: {}, references: [], criteria: [[{ criteria: 'cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*', vulnerable: true, versionEndIncluding: '1.33.1' }]] });
    const ctx = context(source);
    await vulnerabilityMatcherAnalyzer.run(ctx);
    expect(ctx.findings.map((f) => [f.pname, f.severity, f.fingerprint.length])).toEqual([['CVE-2021-42386', 'informational', 32]]);
    expect(ctx.seen.at(-1)).toBe(100);
  });
});
