// Kernel findings the triage found not applicable are kept: rejected as vulnerable_code_not_present with the
// triage's reason until a user sets a status, counted apart from the finding type counts, and found by the grid's
// status filter (which is what VEX and the reports read).
import { expect, it } from 'vitest';
import type { EngineFinding } from '../../src/engine/types.js';
import { buildCycloneDxVex } from '../../src/reports/vex-cyclonedx.js';
import { openVexDocument } from '../../src/reports/vex-openvex.js';
import { findingGrid } from '../../src/services/finding-grid.js';
import { createRepositories } from '../../src/store/repositories.js';
import { fixedNow, sbomFixture } from '../reports/sbom-fixture.js';
import { subject } from '../reports/vex-fixture.js';
import { describeEachDatabase } from '../support/databases.js';

const kernelFinding = (cve: string, verdict: 'applicable' | 'not-applicable', reason: string): EngineFinding => ({
  fingerprint: `fp-${cve}`, findingType: 'dependencyVulnerability', pname: cve, name: `${cve} in linux_kernel 5.4.0`, severity: 'high',
  identifiers: [{ cve }], occurrences: [{ path: 'boot/vmlinux' }],
  component: { ref: 'linux_kernel@5.4.0', name: 'linux_kernel', version: '5.4.0', cpe: 'cpe:2.3:o:linux:linux_kernel:5.4.0:*:*:*:*:*:*:*' },
  applicability: { verdict, reason, evidence: ['configuration: boot/config-5.4.0'] },
  matchConfidence: verdict === 'applicable' ? { label: 'kernel-code-built', score: 0.95 } : { label: 'kernel-code-not-built', score: 0.05 },
});

describeEachDatabase('kernel triage in the store', (get) => {
  it('a not-applicable kernel finding is rejected (vulnerable_code_not_present) by default, counted apart, filtered; a user status wins', async () => {
    const repos = createRepositories(get().db, get().dialect);
    const org = await repos.identities.createOrg('kernel-org');
    const user = await repos.identities.createUser({ orgId: org.id, email: 'k@kernel.test', role: 'admin', passwordHash: null });
    const principal = { userId: user.id, orgId: org.id, email: user.email, role: 'admin' as const, kind: 'user' as const };
    const productId = (await repos.products.create({ orgId: org.id, name: 'router', authorId: user.id })).id;
    const image = await repos.images.create({ productId, orgId: org.id, name: 'fw', fileName: 'fw.bin', authorId: user.id, blob: { key: 'k', size: 1, sha256: 'a', sha1: 'b', md5: 'c' } });
    const scan = await repos.scans.create({ imageId: image.id, productId, orgId: org.id, authorId: user.id });
    await repos.scans.transition(scan.id, ['new'], 'running');
    await repos.results.store({ scanId: scan.id, imageId: image.id, productId }, { components: [], cryptoAssets: [], findings: [
      kernelFinding('CVE-2098-6000', 'not-applicable', 'net/sched/sch_qfq.c: CONFIG_NET_SCH_QFQ is not set'),
      kernelFinding('CVE-2098-6001', 'applicable', 'fs/ext4/inode.c: built (CONFIG_EXT4_FS=y)'),
    ] });
    await repos.scans.transition(scan.id, ['running'], 'done');

    const findings = new Map((await repos.findings.ofScan(scan.id)).map((f) => [f.pname, f]));
    expect(findings.get('CVE-2098-6000')).toMatchObject({ issueStatus: 'rejected', justification: 'vulnerable_code_not_present', statusComment: 'kernel triage: net/sched/sch_qfq.c: CONFIG_NET_SCH_QFQ is not set' });
    expect(findings.get('CVE-2098-6001')).toMatchObject({ issueStatus: 'new' });
    expect(await repos.results.counts(image.id, scan.id)).toMatchObject({ notApplicableCount: 1, notApplicableByRule: [{ rule: 'unrecorded', count: 1 }], findingTypeCounts: [{ type: 'dependencyVulnerability', count: 1 }] });
    const scope = { field: 'imageId', value: image.id, comparator: 'equals' };
    const rejected = await findingGrid(repos, principal, { filters: [scope, { field: 'issueStatus', value: 'rejected' }] });
    expect(rejected.rows.map((r) => [r.pname, r.matchConfidence])).toEqual([['CVE-2098-6000', { label: 'kernel-code-not-built', score: 0.05 }]]);

    // the triage's rejection flows into VEX: not affected, code not present, the triage's reason as the statement
    const kernel = { ref: 'linux_kernel@5.4.0', name: 'linux_kernel', version: '5.4.0', type: 'operating-system' as const, confidence: 1, cpe: 'cpe:2.3:o:linux:linux_kernel:5.4.0:*:*:*:*:*:*:*', paths: ['boot/vmlinux'], evidence: [], foundBy: ['test'] };
    const result = { ...sbomFixture, components: [...sbomFixture.components, kernel], findings: [] };
    const input = { result, subject, findings: await repos.findings.ofScan(scan.id), now: fixedNow };
    const statements = new Map((openVexDocument(input).statements as Array<Record<string, any>>).map((st) => [st.vulnerability.name, st]));
    expect(statements.get('CVE-2098-6000')).toMatchObject({ status: 'not_affected', justification: 'vulnerable_code_not_present', impact_statement: 'kernel triage: net/sched/sch_qfq.c: CONFIG_NET_SCH_QFQ is not set' });
    expect(statements.get('CVE-2098-6001')).toMatchObject({ status: 'under_investigation' });
    const analyses = new Map((buildCycloneDxVex(input).vulnerabilities as Array<Record<string, any>>).map((v) => [v.id, v.analysis]));
    expect(analyses.get('CVE-2098-6000')).toEqual({ state: 'not_affected', justification: 'code_not_present', detail: 'kernel triage: net/sched/sch_qfq.c: CONFIG_NET_SCH_QFQ is not set' });

    // a user who knows better reopens it
    await repos.findings.setStatus({ id: findings.get('CVE-2098-6000')!.id, productId, fingerprint: 'fp-CVE-2098-6000' }, 'inProgress', 'module loaded at runtime', user.id);
    expect((await repos.findings.get(productId, findings.get('CVE-2098-6000')!.id))).toMatchObject({ issueStatus: 'inProgress' });
    expect((await findingGrid(repos, principal, { filters: [scope, { field: 'issueStatus', value: 'rejected' }] })).total).toBe(0);
  });
});
