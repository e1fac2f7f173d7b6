// Re-matching: a scan stored before its vulnerabilities were known gains the finding and an escalation after an
// import; a later KEV entry and EPSS rise escalate the existing finding; re-running changes nothing. A finding
// whose record no longer matches (narrower range, rejected) is resolved: out of the scan's findings and counts, kept in
// the resolution history, its open escalations closed and a 'resolved' log entry saying why, unless the matching failed.
import { expect, it } from 'vitest';
import type { Component, EngineFinding } from '../../src/engine/types.js';
import type { KernelEvidence } from '../../src/engine/vulns/kernel-evidence.js';
import { readFeeds } from '../../src/engine/vulns/feed-reader.js';
import { VulnerabilityMatcher } from '../../src/engine/vulns/matcher.js';
import type { VulnerabilityRecord } from '../../src/engine/vulns/source.js';
import { openDatabase } from '../../src/store/database.js';
import { ResultRepository } from '../../src/store/result.repository.js';
import { escalationsOf, rematchLatestImages } from '../../src/services/vuln-rematch.js';
import { reposOf } from '../support/repos-of.js';
import { failingSource } from '../support/vuln-source.js';
import { VulnerabilityImporter } from '../../src/store/vulns-importer.js';
import { VulnerabilityReader } from '../../src/store/vulns-reader.js';
import { describeEachDatabase } from '../support/databases.js';
import { haveShared, sharedPath } from '../support/shared.js';
import { busybox, productWithImages } from '../support/store-fixtures.js';

const hasData = haveShared('vulndata', 'nvd-cve2.0-CVE-2021-42386.json');

it('escalationsOf names each way risk rose', () => {
  const base = { severity: 'medium', isKev: false, epss: { probability: 0.05, percentile: 0.5 } } as EngineFinding;
  const worse = { severity: 'high', isKev: true, epss: { probability: 0.2, percentile: 0.9 } } as EngineFinding;
  expect(escalationsOf(base, worse, 0.1).map((e) => e.reason)).toEqual(['kev', 'severity', 'epss']);
  expect(escalationsOf(worse, base, 0.1)).toEqual([]);
  expect(escalationsOf(worse, worse, 0.1)).toEqual([]);
});

describeEachDatabase('vulnerability re-matching', (get) => {
  it.runIf(hasData)('after an import the latest image gains the finding and escalations; older images are untouched', async () => {
    const { db } = get();
    const { product, image } = await productWithImages(db);
    const old = await image('2026-01-01T00:00:00.000Z', '1.30.0');
    const latest = await image('2026-02-01T00:00:00.000Z', '1.31.1');
    const vulns = new VulnerabilityImporter(db);
    const vulnReader = new VulnerabilityReader(db);
    const results = new ResultRepository(db);

    // nothing known yet
    expect(await rematchLatestImages(reposOf(db), vulnReader)).toMatchObject({ images: 1, newFindings: 0, escalations: 0 });

    await vulns.importItems(readFeeds([sharedPath('vulndata', 'nvd-cve2.0-CVE-2021-42386.json')]));
    const first = await rematchLatestImages(reposOf(db), vulnReader);
    expect(first).toMatchObject({ images: 1, newFindings: 1, updatedFindings: 0, escalations: 1, problems: [] });
    const rows = await db.selectFrom('findings').selectAll().where('scan_id', '=', latest.scanId).execute();
    expect(rows.map((r) => [r.pname, r.severity, r.is_kev, r.component_version])).toEqual([['CVE-2021-42386', 'high', 0, '1.31.1']]);
    expect(await db.selectFrom('findings').selectAll().where('scan_id', '=', old.scanId).execute()).toEqual([]);
    expect((await results.counts(latest.imageId, latest.scanId)).newEscalationsCount).toBe(1);

    // newly exploited and likely: KEV entry and EPSS above the threshold
    await vulns.putKev([{ cveId: 'CVE-2021-42386', dateAdded: '2026-03-01', requiredAction: 'Update BusyBox.' }]);
    await vulns.putEpss([{ cveId: 'CVE-2021-42386', probability: 0.35, percentile: 0.97, date: '2026-03-01' }]);
    const second = await rematchLatestImages(reposOf(db), vulnReader, { epssThreshold: 0.1 });
    expect(second).toMatchObject({ newFindings: 0, updatedFindings: 1, escalations: 2 });
    const escalations = await db.selectFrom('escalations').select(['reason', 'finding_fingerprint', 'image_id']).where('product_id', '=', product).orderBy('reason').execute();
    expect(escalations.map((e) => e.reason)).toEqual(['epss', 'kev', 'new-vulnerability']);
    expect(new Set(escalations.map((e) => e.image_id))).toEqual(new Set([latest.imageId]));
    const counts = await results.counts(latest.imageId, latest.scanId);
    expect(counts).toMatchObject({ newEscalationsCount: 3, kev: 1, findingTypeCounts: [{ type: 'dependencyVulnerability', count: 1 }] });

    // idempotent
    expect(await rematchLatestImages(reposOf(db), vulnReader)).toMatchObject({ newFindings: 0, updatedFindings: 0, escalations: 0 });
  });
});

const record = (id: string, modified: string, criteria: VulnerabilityRecord['criteria']): VulnerabilityRecord => ({
  id, aliases: [], source: 'nvd', cwes: [], references: [], modified, criteria,
  cvss: { v3: { baseScore: 7.5, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H', version: '3.1' } },
});
const upTo = (end: string) => [[{ criteria: 'cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*', vulnerable: true, versionEndIncluding: end }]];

describeEachDatabase('vulnerability re-matching resolves findings that no longer match', (get) => {
  it('a narrower range or a rejection resolves the finding: out of the scan and its counts, kept in the history, logged with why', async () => {
    const { db } = get();
    const { product, image } = await productWithImages(db);
    const latest = await image('2026-02-01T00:00:00.000Z', '1.31.1');
    const vulns = new VulnerabilityImporter(db);
    const vulnReader = new VulnerabilityReader(db);
    const results = new ResultRepository(db);
    await vulns.putRecord(record('CVE-2098-1000', '2024-01-01T00:00:00.000Z', upTo('1.33.1')));
    await vulns.putRecord(record('CVE-2098-1001', '2024-01-01T00:00:00.000Z', upTo('1.36.0')));
    expect(await rematchLatestImages(reposOf(db), vulnReader)).toMatchObject({ newFindings: 2, withdrawnFindings: 0, escalations: 2 });
    const pnames = async () => (await db.selectFrom('findings').select('pname').where('scan_id', '=', latest.scanId).orderBy('pname').execute()).map((r) => r.pname);
    expect(await pnames()).toEqual(['CVE-2098-1000', 'CVE-2098-1001']);
    expect(await results.counts(latest.imageId, latest.scanId)).toMatchObject({ newEscalationsCount: 2, findingTypeCounts: [{ type: 'dependencyVulnerability', count: 2 }] });

    // NVD narrows CVE-2098-1000 to versions up to 1.30.0: busybox 1.31.1 is no longer affected
    await vulns.putRecord(record('CVE-2098-1000', '2024-03-01T00:00:00.000Z', upTo('1.30.0')));
    expect(await rematchLatestImages(reposOf(db), vulnReader)).toMatchObject({ newFindings: 0, updatedFindings: 0, withdrawnFindings: 1, escalations: 0 });
    expect(await pnames()).toEqual(['CVE-2098-1001']);
    expect(await results.counts(latest.imageId, latest.scanId)).toMatchObject({ newEscalationsCount: 1, findingTypeCounts: [{ type: 'dependencyVulnerability', count: 1 }] });
    const open = await db.selectFrom('escalations').select('details').where('image_id', '=', latest.imageId).where('acknowledged', '=', 0).execute();
    expect(open.map((e) => JSON.parse(e.details!).pname)).toEqual(['CVE-2098-1001']);
    // resolved, not deleted: the history keeps the finding and the escalation log says why
    const [resolution, ...moreResolutions] = await reposOf(db).findings.resolutions(product);
    expect(moreResolutions).toEqual([]);
    expect(resolution).toMatchObject({ pname: 'CVE-2098-1000', scanId: latest.scanId, reason: 'no-longer-matches' });
    expect(resolution!.details).toMatchObject({ component: { name: 'busybox', version: '1.31.1' }, matchedBefore: [{ matcher: 'cpe', kind: 'range', range: { endIncluding: '1.33.1' } }] });
    const logged = await db.selectFrom('escalations').select(['reason', 'details', 'acknowledged']).where('image_id', '=', latest.imageId).where('reason', '=', 'resolved').execute();
    expect(logged.map((e) => [JSON.parse(e.details!).pname, e.acknowledged])).toEqual([['CVE-2098-1000', 1]]);
    expect(JSON.parse(logged[0]!.details!).why).toMatch(/CVE-2098-1000 no longer matches busybox 1\.31\.1/);

    // a failing lookup is not "no longer matches": nothing is withdrawn
    const failing = failingSource(() => true, 'database gone');
    const failed = await rematchLatestImages(reposOf(db), failing);
    expect(failed).toMatchObject({ withdrawnFindings: 0 });
    expect(failed.problems.map((p) => p.kind)).toContain('error');
    expect(await pnames()).toEqual(['CVE-2098-1001']);

    // CVE-2098-1001 is rejected: its newer record affects nothing
    await vulns.putRecord(record('CVE-2098-1001', '2024-04-01T00:00:00.000Z', []));
    expect(await rematchLatestImages(reposOf(db), vulnReader)).toMatchObject({ withdrawnFindings: 1 });
    expect(await pnames()).toEqual([]);
    expect(await results.counts(latest.imageId, latest.scanId)).toMatchObject({ newEscalationsCount: 0, findingTypeCounts: [] });
    // idempotent
    expect(await rematchLatestImages(reposOf(db), vulnReader)).toMatchObject({ newFindings: 0, withdrawnFindings: 0, escalations: 0 });
  });
});

// Re-matches overlap (an import while another still re-matches, a sync and an import): each image's changes are
// applied once, whichever connection gets there first, and every re-match succeeds.
describeEachDatabase('overlapping re-matches', (get) => {
  const sum = (summaries: Array<Record<'newFindings' | 'updatedFindings' | 'escalations', number>>, key: 'newFindings' | 'updatedFindings' | 'escalations') =>
    summaries.reduce((n, s) => n + s[key], 0);

  it('re-matches on three connections at once store each new vulnerability and escalate each risk rise once', async () => {
    const { db, url, dataDir } = get();
    const { product, image } = await productWithImages(db);
    const latest = await image('2026-02-01T00:00:00.000Z', '1.31.1');
    const vulns = new VulnerabilityImporter(db);
    const vulnReader = new VulnerabilityReader(db);
    const others = [await openDatabase({ url, dataDir }), await openDatabase({ url, dataDir })];
    const together = () => Promise.all([db, ...others.map((o) => o.db)].map((d) => rematchLatestImages(reposOf(d), new VulnerabilityReader(d))));
    const escalations = async (reason: string) =>
      (await db.selectFrom('escalations').select('finding_fingerprint').where('product_id', '=', product).where('reason', '=', reason).execute()).length;
    try {
      const cves = ['CVE-2097-1000', 'CVE-2097-1001', 'CVE-2097-1002'];
      for (const [round, cve] of cves.entries()) {
        await vulns.putRecord(record(cve, '2024-01-01T00:00:00.000Z', upTo('1.33.1')));
        const summaries = await together();
        expect(sum(summaries, 'newFindings'), `round ${round}`).toBe(1);
        expect(sum(summaries, 'escalations'), `round ${round}`).toBe(1);
      }
      const rows = await db.selectFrom('findings').select('pname').where('scan_id', '=', latest.scanId).orderBy('pname').execute();
      expect(rows.map((r) => r.pname)).toEqual(cves);
      expect(await escalations('new-vulnerability')).toBe(3);

      // all three become known exploited: each finding is updated and escalated once
      await vulns.putKev(cves.map((cveId) => ({ cveId, dateAdded: '2026-03-01' })));
      const summaries = await together();
      expect(sum(summaries, 'updatedFindings')).toBe(3);
      expect(sum(summaries, 'escalations')).toBe(3);
      expect(await escalations('kev')).toBe(3);
      expect((await db.selectFrom('findings').select('is_kev').where('scan_id', '=', latest.scanId).execute()).map((r) => r.is_kev)).toEqual([1, 1, 1]);
    } finally {
      await Promise.all(others.map((o) => o.close()));
    }
  });

  it('storing a scan\'s result on two connections at once stores it once; findings sharing a fingerprint are stored once', async () => {
    const { db, url, dataDir } = get();
    const { product, image } = await productWithImages(db);
    const { imageId, scanId } = await image('2026-02-01T00:00:00.000Z', '1.31.1', []);
    const vulns = new VulnerabilityImporter(db);
    const vulnReader = new VulnerabilityReader(db);
    await vulns.putRecord(record('CVE-2097-2000', '2024-01-01T00:00:00.000Z', upTo('1.33.1')));
    // (the suite's database also holds the records of the test before)
    const findings = (await new VulnerabilityMatcher(vulnReader).matchAll([busybox('1.31.1')], [])).filter((f) => f.pname === 'CVE-2097-2000');
    expect(findings).toHaveLength(1);
    const result = { components: [busybox('1.31.1'), busybox('1.31.1')], findings: [findings[0]!, { ...findings[0]!, severity: 'low' as const }], cryptoAssets: [] };
    const other = await openDatabase({ url, dataDir });
    try {
      await Promise.all([db, other.db].map((d) => new ResultRepository(d).store({ scanId, imageId, productId: product }, result)));
    } finally {
      await other.close();
    }
    expect((await db.selectFrom('components').select('id').where('scan_id', '=', scanId).execute()).length).toBe(2);
    const stored = await db.selectFrom('findings').select(['fingerprint', 'severity']).where('scan_id', '=', scanId).execute();
    expect(stored).toEqual([{ fingerprint: findings[0]!.fingerprint, severity: findings[0]!.severity }]);
  });
});

describeEachDatabase('re-matching triages kernel findings on the evidence stored with the scan', (get) => {
  const kernel: Component = {
    ref: 'linux_kernel@5.4.43', name: 'linux_kernel', version: '5.4.43', type: 'operating-system', confidence: 1,
    cpe: 'cpe:2.3:o:linux:linux_kernel:5.4.43:*:*:*:*:*:*:*', paths: ['boot/vmlinux'], evidence: [], foundBy: ['test'],
  };
  const evidence: KernelEvidence = {
    config: { source: 'boot/vmlinux (IKCONFIG)', options: { MIPS: 'y', NET: 'y', EXT4_FS: 'y', PPP: 'm', PPPOE: 'm', NET_SCH_QFQ: 'n', BT: 'n' } },
    modules: { source: 'lib/modules', shipped: [{ name: 'pppoe', path: 'lib/modules/5.4.43/pppoe.ko' }], builtin: [], symbols: [] },
  };
  const kernelCve = (id: string, programFiles: string[], modified: string): VulnerabilityRecord => ({
    ...record(id, modified, [[{ criteria: 'cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*', vulnerable: true, versionStartIncluding: '5.4', versionEndExcluding: '5.4.250' }]]),
    source: 'cve5', programFiles,
  });

  it('new kernel findings get the verdict a scan would give, counted per rule; a record whose files change is triaged again', async () => {
    const { db } = get();
    const { image } = await productWithImages(db);
    const latest = await image('2026-02-01T00:00:00.000Z', '5.4.43', [kernel]);
    const results = new ResultRepository(db);
    await results.store({ ...latest, productId: (await db.selectFrom('scans').select('product_id').where('id', '=', latest.scanId).executeTakeFirstOrThrow()).product_id }, { components: [kernel], findings: [], cryptoAssets: [], kernelEvidence: evidence });
    expect(await results.kernelEvidence(latest.scanId)).toEqual(evidence);
    const vulns = new VulnerabilityImporter(db);
    await vulns.putRecord(kernelCve('CVE-2099-7001', ['net/sched/sch_qfq.c'], '2026-03-01T00:00:00.000Z'));
    await vulns.putRecord(kernelCve('CVE-2099-7002', ['fs/ext4/inode.c'], '2026-03-01T00:00:00.000Z'));
    await vulns.putRecord(kernelCve('CVE-2099-7003', ['drivers/net/ppp/pppoe.c'], '2026-03-01T00:00:00.000Z'));
    await vulns.putRecord(kernelCve('CVE-2099-7004', ['arch/x86/kvm/x86.c'], '2026-03-01T00:00:00.000Z'));
    expect(await rematchLatestImages(reposOf(db), new VulnerabilityReader(db))).toMatchObject({ newFindings: 4, problems: [] });
    const verdicts = async () => Object.fromEntries((await db.selectFrom('findings').select(['pname', 'applicability', 'applicability_rule']).where('scan_id', '=', latest.scanId).execute())
      .map((r) => [r.pname, `${r.applicability} ${r.applicability_rule}`]));
    expect(await verdicts()).toEqual({
      'CVE-2099-7001': 'not-applicable config-option-off', 'CVE-2099-7002': 'applicable config-built',
      'CVE-2099-7003': 'applicable module-shipped', 'CVE-2099-7004': 'not-applicable other-architecture',
    });
    expect(await results.counts(latest.imageId, latest.scanId)).toMatchObject({
      notApplicableCount: 2, notApplicableByRule: [{ rule: 'config-option-off', count: 1 }, { rule: 'other-architecture', count: 1 }],
      findingTypeCounts: [{ type: 'dependencyVulnerability', count: 2 }],
    });
    // the record now names Bluetooth code, which this kernel does not build
    await vulns.putRecord(kernelCve('CVE-2099-7002', ['net/bluetooth/l2cap_core.c'], '2026-04-01T00:00:00.000Z'));
    expect(await rematchLatestImages(reposOf(db), new VulnerabilityReader(db))).toMatchObject({ updatedFindings: 1 });
    expect((await verdicts())['CVE-2099-7002']).toBe('not-applicable config-option-off');
    expect((await results.counts(latest.imageId, latest.scanId)).notApplicableByRule).toEqual([{ rule: 'config-option-off', count: 2 }, { rule: 'other-architecture', count: 1 }]);
  });
});
