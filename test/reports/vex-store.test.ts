// The issue workflow drives the VEX documents: findings stored for a scan, statuses set through the finding
// repository (as PATCH /findings does), read back with ofScan() (as the report endpoints do), on every database.
import { expect, it } from 'vitest';
import { FindingRepository } from '../../src/store/finding.repository.js';
import { newId } from '../../src/ids.js';
import { ResultRepository } from '../../src/store/result.repository.js';
import { buildCycloneDxVex } from '../../src/reports/vex-cyclonedx.js';
import { openVexDocument } from '../../src/reports/vex-openvex.js';
import { describeEachDatabase } from '../support/databases.js';
import { fixedNow } from './sbom-fixture.js';
import { haveVulnData, subject, vexInput } from './vex-fixture.js';

describeEachDatabase('VEX from stored issue statuses', (get) => {
  it.runIf(haveVulnData)('a status set on a finding changes its VEX statement and analysis', async () => {
    const { db } = get();
    const { result } = await vexInput();
    const t = '2026-01-01T00:00:00.000Z';
    const [org, product, imageId, scanId] = [newId(), newId(), newId(), newId()];
    await db.insertInto('organisations').values({ id: org, name: `org-${org}`, create_time: t }).execute();
    await db.insertInto('products').values({ id: product, org_id: org, name: 'Router X', description: null, author_id: 'u', is_archived: 0, create_time: t, update_time: t }).execute();
    await db.insertInto('images').values({
      id: imageId, product_id: product, org_id: org, name: 'router-x-1.2.bin', version: '1.2', file_name: 'fw.bin', blob_key: 'k', size: 1,
      sha256: 'a', sha1: 'b', md5: 'c', detected_type: null, author_id: 'u', is_archived: 0, create_time: t, update_time: t,
    }).execute();
    await db.insertInto('scans').values({
      id: scanId, image_id: imageId, product_id: product, org_id: org, author_id: 'u', state: 'done', state_id: newId(), state_time: t,
      error: null, progress_phase: null, progress_percent: null, engine_version: '0.1.0', result_blob_key: null, create_time: t,
    }).execute();
    await new ResultRepository(db).store({ scanId, imageId, productId: product }, result);

    const findings = new FindingRepository(db);
    const stored = await findings.ofScan(scanId);
    expect(stored.map((f) => f.issueStatus)).toEqual(Array(4).fill('new'));
    const byName = (name: string) => stored.find((f) => f.pname === name)!;
    await findings.setStatus(byName('CVE-2022-28391'), 'rejected', 'netstat is not built into this busybox', 'u', 'vulnerable_code_not_present');
    await findings.setStatus(byName('CVE-2020-28928'), 'inProgress', null, 'u');
    // A later change without a justification clears it: it belongs to the state that carried it.
    await findings.setStatus(byName('CVE-2015-1793'), 'rejected', null, 'u', 'component_not_present');
    await findings.setStatus(byName('CVE-2015-1793'), 'remediated', 'upgraded', 'u');

    const input = { result, subject, findings: await findings.ofScan(scanId), now: fixedNow };
    const statements: Record<string, any> = Object.fromEntries((openVexDocument(input).statements as any[]).map((s) => [s.vulnerability.name, s]));
    expect(Object.fromEntries(Object.entries(statements).map(([k, s]) => [k, s.status]))).toEqual({
      'CVE-2015-1793': 'fixed', 'CVE-2020-28928': 'under_investigation', 'CVE-2021-42386': 'under_investigation', 'CVE-2022-28391': 'not_affected',
    });
    expect(statements['CVE-2022-28391']).toMatchObject({ justification: 'vulnerable_code_not_present', impact_statement: 'netstat is not built into this busybox' });
    expect(statements['CVE-2015-1793'].justification).toBeUndefined();
    const analyses: Record<string, any> = Object.fromEntries((buildCycloneDxVex(input).vulnerabilities as any[]).map((v) => [v.id, v.analysis]));
    expect(Object.fromEntries(Object.entries(analyses).map(([k, a]) => [k, a.state]))).toEqual({
      'CVE-2015-1793': 'resolved', 'CVE-2020-28928': 'in_triage', 'CVE-2021-42386': 'in_triage', 'CVE-2022-28391': 'not_affected',
    });
    expect(analyses['CVE-2022-28391']).toEqual({ state: 'not_affected', justification: 'code_not_present', detail: 'netstat is not built into this busybox' });
    expect(analyses['CVE-2015-1793']).toEqual({ state: 'resolved', detail: 'upgraded' });
    expect((await findings.history(product, byName('CVE-2015-1793').fingerprint)).map((h) => [h.status, h.justification])).toEqual([
      ['rejected', 'component_not_present'], ['remediated', null],
    ]);
  });
});
