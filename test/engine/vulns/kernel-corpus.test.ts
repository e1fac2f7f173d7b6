// Kernel triage on a real corpus kernel, hand-checked. The OpenWrt image (Linux 5.4.43, MIPS mt7621) has no
// embedded configuration (no IKCFG_ST in the decompressed kernel), no kallsyms tables and no System.map: none of the
// corpus kernels has one (bzImage_xz and the TP-Link 2.6.31 kernel neither). Its evidence is the 46 shipped modules
// in lib/modules/5.4.43 and their architecture (MIPS). The records are real kernel CNA CVE 5 records
// (CVEProject/cvelistV5, as stored at the commits below), trimmed to the fields the matcher reads: the version-number
// `affected` entry with its programFiles (the git-commit entry and references dropped) — see data/kernel-cna-sample.json.
// Each verdict below was checked by hand against the kernel's Makefiles (v5.4; the kbuild table, from 6.1, agrees on
// the options: PPP_ASYNC, PPP, KVM, INET, IPV6, NF_CONNTRACK_H323, EXT4_FS) and the image:
//   CVE-2024-26675 drivers/net/ppp/ppp_async.c: drivers/net/ppp/Makefile `obj-$(CONFIG_PPP_ASYNC) += ppp_async.o`;
//                  lib/modules/5.4.43/ppp_async.ko ships (modinfo name=ppp_async)                     → applicable
//   CVE-2024-41044 drivers/net/ppp/ppp_generic.c: `obj-$(CONFIG_PPP) += ppp_generic.o`; ppp_generic.ko ships → applicable
//   CVE-2024-26598 arch/arm64/kvm/vgic/vgic-its.c: arm64 only; the kernel and its modules are MIPS (uImage
//                  'MIPS OpenWrt Linux-5.4.43', ELF e_machine MIPS)                                   → not applicable
//   CVE-2024-26640 net/ipv4/tcp.c: net/ipv4/Makefile `obj-y := ... tcp.o`, built whenever CONFIG_INET=y, which a
//                  router has — but the image gives no configuration or symbols to show it             → unknown (truth: built)
//   CVE-2024-26852 net/ipv6/route.c: `ipv6-objs := ... route.o ...`, `obj-$(CONFIG_IPV6) += ipv6.o`; the image ships
//                  nf_defrag_ipv6.ko, nf_reject_ipv6.ko, ip6_tables.ko but no ipv6.ko, so IPv6 is built in — a
//                  conclusion the triage does not draw from dependencies                                → unknown (truth: built)
//   CVE-2024-26851 net/netfilter/nf_conntrack_h323_asn1.c: part of nf_conntrack_h323.ko
//                  (`nf_conntrack_h323-objs := nf_conntrack_h323_main.o nf_conntrack_h323_asn1.o`), not shipped → unknown
//   CVE-2024-26704 fs/ext4/move_extent.c: part of ext4.ko (`ext4-y := ... move_extent.o`), not shipped;
//                  the root is squashfs                                                                → unknown
//   CVE-2024-26642, CVE-2024-26733, CVE-2024-26751: the stored records (CVE 5.0) name no programFiles   → unknown
//                  (26751 is ARM ep93xx code: not built here, but the record does not say where it is)
//   CVE-2024-26603 (x86/fpu, 5.14 and later) does not match 5.4.43 at all.
// Result of the hand-check: every applicable and not-applicable verdict is right; the unknowns are right for the
// evidence (two of them, tcp.c and route.c, are in fact built: the triage does not guess without a configuration).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { summaryLines } from '../../../src/cli/scan.js';
import { inventoryAnalyzer } from '../../../src/engine/inventory/inventory.analyzer.js';
import { scan } from '../../../src/engine/scan.js';
import { cve5ToRecord } from '../../../src/engine/vulns/cve5.importer.js';
import { MemoryVulnerabilitySource } from '../../../src/engine/vulns/memory-source.js';
import { vulnerabilityMatcherAnalyzer } from '../../../src/engine/vulns/vulnerability-matcher.analyzer.js';
import { corpus, haveShared } from '../../support/shared.js';

const IMAGE = 'openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin';
const SAMPLE = new URL('./data/kernel-cna-sample.json', import.meta.url);
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The hand-checked verdicts: rule and verdict per CVE (see the header for the Makefile lines). */
const HAND_CHECKED: Record<string, string> = {
  'CVE-2024-26675': 'applicable module-shipped',
  'CVE-2024-41044': 'applicable module-shipped',
  'CVE-2024-26598': 'not-applicable other-architecture',
  'CVE-2024-26640': 'unknown no-evidence',
  'CVE-2024-26852': 'unknown no-evidence',
  'CVE-2024-26851': 'unknown no-evidence',
  'CVE-2024-26704': 'unknown no-evidence',
  'CVE-2024-26642': 'unknown no-files',
  'CVE-2024-26733': 'unknown no-files',
  'CVE-2024-26751': 'unknown no-files',
};

describe.runIf(haveShared('corpus', IMAGE))('kernel triage on the OpenWrt 5.4.43 corpus kernel (hand-checked sample)', () => {
  it('gives the hand-checked verdicts, with the shipped module or the architecture as evidence, and counts them per rule', async () => {
    const source = new MemoryVulnerabilitySource();
    for (const record of JSON.parse(readFileSync(SAMPLE, 'utf8')) as unknown[]) source.putRecord(cve5ToRecord(record));
    const workDir = mkdtempSync(join(tmpdir(), 'firmscope-kcorpus-'));
    dirs.push(workDir);
    const result = await scan(corpus(IMAGE), { workDir, vulnerabilities: source, analyzers: [inventoryAnalyzer, vulnerabilityMatcherAnalyzer] });

    const kernel = result.findings.filter((f) => f.component?.cpe?.startsWith('cpe:2.3:o:linux:linux_kernel:5.4.43:'));
    expect(Object.fromEntries(kernel.map((f) => [f.pname, `${f.applicability?.verdict} ${f.applicability?.rule}`]))).toEqual(HAND_CHECKED);
    expect(result.kernelEvidence?.config).toBeUndefined();
    expect(result.kernelEvidence?.symbols).toBeUndefined();
    expect(result.kernelEvidence?.arch).toEqual({ name: 'mips', source: 'ELF machine of the shipped modules (mipsel)' });
    expect(result.kernelEvidence?.modules?.shipped).toHaveLength(46);
    // records without CPEs: none of these CNA records has a CPE or cpeApplicability, so all ten findings come only
    // from the CVE 5 names (Linux/Linux, the product alias of linux:linux_kernel), each match marked so
    expect(kernel.every((f) => ((f.match?.matches ?? []) as Array<{ origin?: string }>).every((m) => m.origin === 'alias'))).toBe(true);
    const byId = new Map(kernel.map((f) => [f.pname, f]));
    expect(byId.get('CVE-2024-26675')!.applicability!.reason).toMatch(/module ppp_async\.ko ships \(.*lib\/modules\/5\.4\.43\/ppp_async\.ko\)/);
    expect(byId.get('CVE-2024-26598')!.applicability!.evidence).toContain('architecture: mips (ELF machine of the shipped modules (mipsel))');
    expect(result.summary?.kernelTriage).toEqual({ applicable: 2, 'not-applicable': 1, unknown: 7, removedByRule: { 'other-architecture': 1 } });
    // the offline summary says it too
    expect(summaryLines(result)).toContain('  kernel triage: 2 applicable, 1 not applicable (other-architecture 1), 7 unknown\n');
  });
});
