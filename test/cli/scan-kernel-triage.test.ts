// The offline JSON of `firmscope scan` shows the kernel triage: each kernel finding's applicability, and the scan
// summary's count per verdict and per rule that removed findings. The image is built here: a MIPS kernel with its
// banner and an IKCONFIG configuration (PPP off, INET on); the records are real kernel CNA CVE 5 records
// (test/engine/vulns/data/kernel-cna-sample.json) imported with `firmscope vulndb import`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { register as registerScan } from '../../src/cli/scan.js';
import { register as registerVulndb } from '../../src/cli/vulndb.js';
import type { ScanResult } from '../../src/engine/types.js';
import { runCli, useCliFolder } from '../support/cli.js';

const folder = useCliFolder('fs-cli-ktriage-');
const SAMPLE = new URL('../engine/vulns/data/kernel-cna-sample.json', import.meta.url);
const CONFIG = ['CONFIG_MIPS=y', 'CONFIG_NET=y', 'CONFIG_INET=y', '# CONFIG_PPP is not set', ''].join('\n');

describe('firmscope scan: kernel triage in the offline JSON', () => {
  it('each kernel finding carries its verdict with the reason; the summary counts verdicts and what each rule removed', async () => {
    const dir = folder();
    const records = (JSON.parse(readFileSync(SAMPLE, 'utf8')) as Array<{ cveMetadata: { cveId: string } }>)
      .filter((r) => ['CVE-2024-26675', 'CVE-2024-26640', 'CVE-2024-26598'].includes(r.cveMetadata.cveId));
    const recordsFile = join(dir, 'kernel-cna.json');
    writeFileSync(recordsFile, JSON.stringify(records));
    expect((await runCli(registerVulndb, ['vulndb', 'import', recordsFile])).exitCode).toBe(0);

    const root = join(dir, 'rootfs');
    mkdirSync(join(root, 'boot'), { recursive: true });
    writeFileSync(join(root, 'boot', 'vmlinux'), Buffer.concat([
      Buffer.from('\0Linux version 5.4.43 (builder@buildhost) (gcc version 8.4.0 (OpenWrt GCC 8.4.0 r11063)) #0 SMP Thu May 21 2020\n\0'),
      Buffer.from('IKCFG_ST'), gzipSync(CONFIG), Buffer.from('IKCFG_ED'), Buffer.alloc(64),
    ]));
    const image = join(dir, 'firmware.tar');
    execFileSync('tar', ['-cf', image, '-C', root, 'boot']);
    const out = join(dir, 'result.json');
    const run = await runCli(registerScan, ['scan', image, '-o', out, '--no-cache']);
    expect(run.exitCode).toBe(0);

    const result = JSON.parse(readFileSync(out, 'utf8')) as ScanResult;
    const kernel = new Map(result.findings.filter((f) => f.component?.cpe?.startsWith('cpe:2.3:o:linux:linux_kernel:5.4.43:')).map((f) => [f.pname, f]));
    expect([...kernel.keys()].sort()).toEqual(['CVE-2024-26598', 'CVE-2024-26640', 'CVE-2024-26675']);
    expect(kernel.get('CVE-2024-26675')!.applicability).toMatchObject({ verdict: 'not-applicable', rule: 'config-option-off', reason: expect.stringMatching(/^drivers\/net\/ppp\/ppp_async\.c: CONFIG_PPP(_ASYNC)? is not set$/) });
    expect(kernel.get('CVE-2024-26598')!.applicability).toMatchObject({ verdict: 'not-applicable', rule: 'other-architecture' });
    expect(kernel.get('CVE-2024-26640')!.applicability).toMatchObject({ verdict: 'applicable', rule: 'config-built', reason: 'net/ipv4/tcp.c: built (CONFIG_INET=y)' });
    expect(kernel.get('CVE-2024-26640')!.applicability!.evidence[0]).toMatch(/^configuration: .*boot\/vmlinux \(IKCONFIG\)$/);
    expect(kernel.get('CVE-2024-26640')!.matchConfidence).toEqual({ label: 'kernel-code-built', score: 0.95 });
    expect(result.summary?.kernelTriage).toEqual({ applicable: 1, 'not-applicable': 2, unknown: 0, removedByRule: { 'config-option-off': 1, 'other-architecture': 1 } });
    expect(run.stderr).toMatch(/^ {2}kernel triage: 1 applicable, 2 not applicable \((config-option-off 1, other-architecture 1|other-architecture 1, config-option-off 1)\), 0 unknown$/m);
  });
});
