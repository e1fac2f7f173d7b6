// Benchmark: the time to render the findings PDF (and the HTML report) for N synthetic findings and for the
// corpus images scanned with the NVD corpus records and the CISA KEV catalogue, each in every triage state.
// Prints the machine state (load average) first and last: on a shared machine the numbers mean little without it.
//   npx tsx bench/reports/run.ts [--findings 200,1000|none] [--images trendnet,openwrt|none] [--out DIR] [--runs 3]
// --out writes each report it rendered (PDF and HTML) to DIR, for reading them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { scan } from '../../src/engine/scan.js';
import { SEVERITIES, type ScanResult } from '../../src/engine/types.js';
import { readFeeds } from '../../src/engine/vulns/feed-reader.js';
import { MemoryVulnerabilitySource } from '../../src/engine/vulns/memory-source.js';
import { findReport } from '../../src/reports/index.js';
import type { ReportFinding, ReportInput, StatusChangeRecord } from '../../src/reports/report.js';

const project = resolve(import.meta.dirname, '..', '..');
const shared = process.env.FIRMSCOPE_SHARED_DIR ?? resolve(project, '..', 'shared');
const IMAGES: Record<string, { file: string; product: string; image: string }> = {
  trendnet: { file: 'trendnet-tew733gr-rootfs.squashfs', product: 'TRENDnet TEW-733GR', image: 'TEW-733GR' },
  openwrt: { file: 'openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin', product: 'Xiaomi Mi Router 3G v2 (OpenWrt)', image: 'OpenWrt sysupgrade' },
};
const STATUSES = ['new', 'inProgress', 'remediated', 'rejected'] as const;

const machine = (): string => `load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} on ${cpus().length} CPUs`;

/** Every triage state in turn, with a comment and a two-step history on each triaged finding. */
function triaged(findings: ScanResult['findings']): Pick<ReportInput, 'findings' | 'history'> {
  const out: ReportFinding[] = findings.map((f, i) => {
    const issueStatus = STATUSES[i % 4]!;
    return { ...f, id: `F${String(i + 1).padStart(5, '0')}`, issueStatus, ...(issueStatus === 'rejected' ? { justification: 'vulnerable_code_not_in_execute_path' as const, statusComment: 'The service is disabled in this build' } : {}) };
  });
  const history: Record<string, StatusChangeRecord[]> = {};
  for (const f of out) {
    if (f.issueStatus === 'new') continue;
    history[f.id] = [
      { status: 'inProgress', time: '2026-11-20T10:00:00.000Z', author: 'lead@example.com', comment: 'Assigned to the platform team' },
      ...(f.issueStatus !== 'inProgress' ? [{ status: f.issueStatus, time: '2026-11-25T15:30:00.000Z', comment: f.statusComment ?? 'Fixed in build 42' }] : []),
    ];
  }
  return { findings: out, history };
}

/** N dependency vulnerabilities over N/4 components, with descriptions, scores, references and evidence. */
function synthetic(n: number): ScanResult {
  const words = 'a heap buffer overflow in the request parser of the embedded web server allows remote attackers to execute arbitrary code via a crafted HTTP header'.split(' ');
  const findings: ScanResult['findings'] = Array.from({ length: n }, (_, i) => {
    const c = i % Math.max(1, Math.floor(n / 4));
    const severity = SEVERITIES[i % SEVERITIES.length]!;
    const description = Array.from({ length: 30 + (i % 40) }, (_, w) => words[(i + w) % words.length]).join(' ') + '.';
    return {
      fingerprint: `fp${i}`, findingType: 'dependencyVulnerability', pname: `CVE-2024-${String(10000 + i)}`, name: `CVE-2024-${10000 + i} in lib${c} 1.${c}.0`,
      severity, identifiers: [{ cve: `CVE-2024-${10000 + i}` }, { cwe: 'CWE-787' }], description,
      cvss: { cvssV3: { baseScore: 9.8 - (i % 50) / 10, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', version: '3.1' } }, cvssLatestBaseScore: 9.8 - (i % 50) / 10,
      epss: { probability: (i % 97) / 100, percentile: 0.5 }, isKev: i % 23 === 0, ...(i % 23 === 0 ? { kev: { dateAdded: '2023-05-12', dueDate: '2023-06-02' } } : {}),
      references: [{ url: `https://nvd.nist.gov/vuln/detail/CVE-2024-${10000 + i}` }, { url: `https://example.org/advisories/${i}` }],
      knownFixedVersion: `1.${c}.${1 + (i % 5)}`, recommendedAction: `Upgrade lib${c} to 1.${c}.${1 + (i % 5)} or later.`,
      component: { ref: `c${c}`, name: `lib${c}`, version: `1.${c}.0` }, occurrences: [{ path: `usr/lib/lib${c}.so.1`, evidence: `lib${c} version string 1.${c}.0` }],
      match: { matches: [{ matcher: 'cpe', record: `CVE-2024-${10000 + i}`, source: 'nvd', scheme: 'generic', version: `1.${c}.0`, kind: 'range', criterion: `cpe:2.3:a:vendor:lib${c}:*:*:*:*:*:*:*:*` }] },
    };
  });
  return {
    engineVersion: 'bench', image: { fileName: `synthetic-${n}.bin`, size: 8 << 20, hashes: { sha256: '0'.repeat(64), sha1: '0'.repeat(40), md5: '0'.repeat(32) }, type: 'squashfs' },
    files: [], unknownChunks: [], problems: [], cryptoAssets: [], findings,
    components: Array.from({ length: Math.max(1, Math.floor(n / 4)) }, (_, c) => ({
      ref: `c${c}`, name: `lib${c}`, version: `1.${c}.0`, type: 'library' as const, paths: [`usr/lib/lib${c}.so.1`], hashes: { sha256: '', sha1: '', md5: '' }, evidence: [], foundBy: ['bench'],
    })),
    stats: { durationMs: 0, filesExtracted: n, bytesExtracted: 0, formats: { squashfs: 1 } },
  } as unknown as ScanResult;
}

async function time(label: string, input: ReportInput, runs: number, out: string | undefined, name: string): Promise<void> {
  for (const id of ['findings-pdf', 'findings-html'] as const) {
    const report = findReport(id)!;
    const times: number[] = [];
    let bytes = 0;
    for (let r = 0; r < runs; r++) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const body = await report.generate(input);
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      times.push(wall);
      bytes = Buffer.byteLength(body as Buffer | string);
      if (r === runs - 1) {
        console.log(`${label.padEnd(34)} ${id.padEnd(14)} wall ${Math.min(...times).toFixed(0)} ms (best of ${runs}), CPU of the last ${((cpu.user + cpu.system) / 1e3).toFixed(0)} ms, ${(bytes / 1024).toFixed(0)} KB`);
        if (out) writeFileSync(join(out, `${name}.${id === 'findings-pdf' ? 'pdf' : 'html'}`), body);
      }
    }
  }
}

const { values } = parseArgs({ options: { findings: { type: 'string', default: '200,1000' }, images: { type: 'string', default: 'trendnet,openwrt' }, out: { type: 'string' }, runs: { type: 'string', default: '3' } } });
const runs = Math.max(1, Number(values.runs));
if (values.out) mkdirSync(values.out, { recursive: true });
const now = new Date('2026-11-28T00:00:00.000Z');
console.log(`findings report rendering, ${new Date().toISOString()}, ${machine()}`);
for (const n of values.findings!.split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0)) {
  const result = synthetic(n);
  await time(`${n} synthetic findings`, { result, ...triaged(result.findings), now }, runs, values.out, `synthetic-${n}`);
}
const images = values.images === 'none' ? [] : values.images!.split(',');
if (images.length) {
  const vulnerabilities = new MemoryVulnerabilitySource();
  for await (const item of readFeeds([join(shared, 'vulndata', 'nvd-corpus'), join(shared, 'vulndata', 'cisa-kev-known_exploited_vulnerabilities.json')])) {
    if (item.kind !== 'error') vulnerabilities.apply(item);
  }
  for (const key of images) {
    const image = IMAGES[key];
    if (!image) throw new Error(`unknown image ${key}: ${Object.keys(IMAGES).join(', ')}`);
    const work = mkdtempSync(join(tmpdir(), 'fs-bench-reports-'));
    try {
      const result = await scan(join(shared, 'corpus', image.file), { workDir: join(work, 'w'), vulnerabilities });
      const input: ReportInput = {
        result, ...triaged(result.findings), now,
        subject: { product: { id: 'P', name: image.product }, image: { id: 'I', name: image.image, createTime: '2026-11-26T08:00:00.000Z' }, scan: { id: 'S', createTime: '2026-11-26T08:01:00.000Z' } },
      };
      await time(`${key} (${result.findings.length} findings)`, input, runs, values.out, key);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
}
console.log(`done, ${machine()}`);
