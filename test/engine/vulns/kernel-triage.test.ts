// Kernel CVE triage on a kernel configuration with known options off: CVEs in code that is not built are not
// applicable (with the option as the reason), CVEs in built code stay applicable, missing evidence is unknown.
// The configuration is found as the image ships it (a /boot/config file, or IKCONFIG inside the kernel).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FileIndex } from '../../../src/engine/file-index.js';
import type { Component } from '../../../src/engine/types.js';
import { embeddedConfig, findKernelConfig } from '../../../src/engine/vulns/kernel-config.js';
import { gatherKernelEvidence, type KernelEvidence } from '../../../src/engine/vulns/kernel-evidence.js';
import { kernelApplicability, kernelFileOptions, triageKernelFindings } from '../../../src/engine/vulns/kernel-triage.js';
import { VulnerabilityMatcher } from '../../../src/engine/vulns/matcher.js';
import { MemoryVulnerabilitySource } from '../../../src/engine/vulns/memory-source.js';
import type { VulnerabilityRecord } from '../../../src/engine/vulns/source.js';
import { tempDir } from '../../support/temp-dirs.js';

// a MIPS router kernel: networking and ext4 built, the QFQ scheduler and Bluetooth not, one module
const CONFIG = [
  'CONFIG_MIPS=y', 'CONFIG_NET=y', 'CONFIG_INET=y', 'CONFIG_EXT4_FS=y', 'CONFIG_NETFILTER=y', 'CONFIG_NF_TABLES=m',
  '# CONFIG_NET_SCH_QFQ is not set', '# CONFIG_BT is not set', '',
].join('\n');
const found: KernelEvidence = { config: { source: 'boot/config-5.4.0', options: { MIPS: 'y', NET: 'y', INET: 'y', EXT4_FS: 'y', NETFILTER: 'y', NF_TABLES: 'm', NET_SCH_QFQ: 'n', BT: 'n' } } };

describe('kernel CVE triage', () => {
  it('the shipped kbuild table maps source files to the options that build them', () => {
    const table = kernelFileOptions();
    expect(table.get('net/sched/sch_qfq.c')).toEqual(['NET_SCH_QFQ']);
    expect(table.get('fs/ext4/inode.c')).toEqual(['EXT4_FS']);
    expect(table.get('net/netfilter/nf_tables_api.c')).toEqual(['NETFILTER', 'NF_TABLES']);
    expect(table.get('kernel/fork.c')).toEqual([]);
  });

  it('decides from the configuration: built, not built (option off, other architecture), unknown', () => {
    expect(kernelApplicability(['net/sched/sch_qfq.c'], found)).toMatchObject({ verdict: 'not-applicable', reason: 'net/sched/sch_qfq.c: CONFIG_NET_SCH_QFQ is not set' });
    expect(kernelApplicability(['net/bluetooth/l2cap_core.c', 'drivers/bluetooth/btusb.c'], found)).toMatchObject({ verdict: 'not-applicable' });
    expect(kernelApplicability(['arch/x86/kvm/x86.c'], found).reason).toMatch(/another architecture/);
    expect(kernelApplicability(['fs/ext4/inode.c'], found)).toMatchObject({ verdict: 'applicable', reason: 'fs/ext4/inode.c: built (CONFIG_EXT4_FS=y)' });
    // built as a module: counts as built only when the module ships (kernel-evidence.test.ts)
    expect(kernelApplicability(['net/netfilter/nf_tables_api.c'], found)).toMatchObject({ verdict: 'unknown', rule: 'module-not-shipped' });
    // partly built is applicable
    expect(kernelApplicability(['net/sched/sch_qfq.c', 'fs/ext4/inode.c'], found).verdict).toBe('applicable');
    expect(kernelApplicability(['drivers/not/a/file.c'], found).verdict).toBe('unknown');
    expect(kernelApplicability(['fs/ext4/inode.c'], {})).toMatchObject({ verdict: 'unknown', reason: expect.stringMatching(/no kernel configuration/) });
    expect(kernelApplicability([], found).verdict).toBe('unknown');
  });

  it('finds the configuration in the image and triages the matched kernel findings', async () => {
    const root = tempDir('firmscope-kernel');
    mkdirSync(join(root, 'boot'));
    // IKCONFIG: the gzipped configuration between its markers inside the kernel image
    writeFileSync(join(root, 'boot', 'vmlinux'), Buffer.concat([Buffer.alloc(64, 0x90), Buffer.from('IKCFG_ST'), gzipSync(CONFIG), Buffer.from('IKCFG_ED'), Buffer.alloc(64)]));
    expect(embeddedConfig(Buffer.from('no configuration here'))).toBeUndefined();
    const index = await FileIndex.fromDirectory(root);
    const kernel: Component = {
      ref: 'linux_kernel@5.4.0', name: 'linux_kernel', version: '5.4.0', type: 'operating-system', confidence: 1,
      cpe: 'cpe:2.3:o:linux:linux_kernel:5.4.0:*:*:*:*:*:*:*', paths: ['boot/vmlinux'], evidence: [], foundBy: ['test'],
    };
    expect((await findKernelConfig(index, [kernel]))?.source).toBe('boot/vmlinux (IKCONFIG)');
    const inConfig = await gatherKernelEvidence(index, [kernel]);

    const source = new MemoryVulnerabilitySource();
    const cve = (id: string, programFiles: string[]): VulnerabilityRecord => ({
      id, aliases: [], source: 'cve5', cwes: [], references: [], cvss: {}, programFiles,
      criteria: [[{ criteria: 'cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*', vulnerable: true, versionEndExcluding: '5.4.250', origin: 'alias' }]],
    });
    source.putRecord(cve('CVE-2098-5000', ['net/sched/sch_qfq.c']));
    source.putRecord(cve('CVE-2098-5001', ['fs/ext4/inode.c']));
    source.putRecord(cve('CVE-2098-5002', []));
    const findings = await new VulnerabilityMatcher(source).matchAll([kernel], []);
    expect(triageKernelFindings(findings, inConfig)).toEqual({ applicable: 1, 'not-applicable': 1, unknown: 1, removedByRule: { 'config-option-off': 1 } });
    const byId = new Map(findings.map((f) => [f.pname, f]));
    expect(byId.get('CVE-2098-5000')).toMatchObject({ applicability: { verdict: 'not-applicable', reason: 'net/sched/sch_qfq.c: CONFIG_NET_SCH_QFQ is not set' }, matchConfidence: { label: 'kernel-code-not-built' } });
    expect(byId.get('CVE-2098-5000')!.applicability!.evidence[0]).toBe('configuration: boot/vmlinux (IKCONFIG)');
    expect(byId.get('CVE-2098-5001')).toMatchObject({ applicability: { verdict: 'applicable' }, matchConfidence: { label: 'kernel-code-built', score: 0.95 } });
    expect(byId.get('CVE-2098-5002')).toMatchObject({ applicability: { verdict: 'unknown' }, matchConfidence: { label: 'kernel-code-unknown' } });
  });
});
