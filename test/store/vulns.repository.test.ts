import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { readFeeds } from '../../src/engine/vulns/feed-reader.js';
import { VulnerabilityMatcher } from '../../src/engine/vulns/matcher.js';
import type { VulnerabilityRecord } from '../../src/engine/vulns/source.js';
import { openDatabase } from '../../src/store/database.js';
import { clearRematch, rematchRequestedAt } from '../../src/store/vuln-rematch-request.js';
import { writeRecords } from '../../src/store/vulns-record-writer.js';
import { VulnerabilityImporter } from '../../src/store/vulns-importer.js';
import { VulnerabilityReader } from '../../src/store/vulns-reader.js';
import { describeEachDatabase } from '../support/databases.js';
import { recordsOfPackage, recordsOfProduct } from '../support/vuln-source.js';
import { haveShared, sharedPath } from '../support/shared.js';
import { tempDir } from '../support/temp-dirs.js';

const hasData = haveShared('vulndata', 'nvd-corpus');
const vulndata = (...p: string[]) => sharedPath('vulndata', ...p);

const tableCounts = async (repo: VulnerabilityImporter) => {
  const s = await repo.status();
  return { records: s.records, kev: s.kev, epss: s.epss };
};

describeEachDatabase('vulnerability repository', (get) => {
  it.runIf(hasData)('imports the real feeds, and re-importing changes nothing', async () => {
    const repo = new VulnerabilityImporter(get().db);
    const reader = new VulnerabilityReader(get().db);
    const paths = [vulndata('nvd-corpus'), vulndata('nvd-api2.0-full-page.json'), vulndata('osv-UBUNTU-CVE-2021-3782.json'), vulndata('cisa-kev-known_exploited_vulnerabilities.json')];
    const first = await repo.importItems(readFeeds(paths));
    expect(first.errors).toEqual([]);
    expect(first.inserted).toBe(44 + 38 + 1);
    expect(first.kev).toBe(1404);
    const before = await tableCounts(repo);
    const again = await repo.importItems(readFeeds(paths));
    expect(again).toMatchObject({ inserted: 0, updated: 0, unchanged: 83 });
    expect(again.changed.size).toBe(0);
    expect(await tableCounts(repo)).toEqual(before);
    const status = await repo.status();
    expect(status.records).toEqual([{ source: 'nvd', count: 82 }, { source: 'osv', count: 1 }]);
    expect(status.newest?.modified).toMatch(/^20\d\d-/);
    expect(status.feeds.map((f) => f.feed)).toEqual(['kev', 'nvd', 'osv']);
    expect(status.feeds.find((f) => f.feed === 'kev')?.feedDate).toBe('2025-08-25T17:04:19.9796Z');
  });

  it.runIf(hasData)('serves the matcher by (vendor, product) with KEV and EPSS attached', async () => {
    const repo = new VulnerabilityImporter(get().db);
    const reader = new VulnerabilityReader(get().db);
    const dir = tempDir('firmscope-epss');
    writeFileSync(join(dir, 'epss.csv'), '#model_version:v2025.03.14,score_date:2025-08-25T00:00:00Z\ncve,epss,percentile\nCVE-2021-42386,0.5,0.97\n');
    await repo.importItems(readFeeds([join(dir, 'epss.csv')]));
    const records = await recordsOfProduct(reader, 'busybox', 'busybox');
    expect(records.map((r) => r.id).sort()).toEqual(['CVE-2016-2148', 'CVE-2018-1000517', 'CVE-2021-42386', 'CVE-2022-28391', 'CVE-2022-30065']);
    const busybox = {
      ref: 'busybox@1.31.1', name: 'busybox', version: '1.31.1', type: 'application' as const, confidence: 1,
      cpe: 'cpe:2.3:a:busybox:busybox:1.31.1:*:*:*:*:*:*:*', paths: ['bin/busybox'], evidence: [], foundBy: ['t'],
    };
    const findings = await new VulnerabilityMatcher(reader).matchAll([busybox], []);
    expect(findings.map((f) => f.pname).sort()).toEqual(['CVE-2021-42386', 'CVE-2022-28391']);
    expect(findings.find((f) => f.pname === 'CVE-2021-42386')?.epss).toEqual({ probability: 0.5, percentile: 0.97 });
    expect((await recordsOfPackage(reader, 'Ubuntu', 'wayland')).map((r) => r.id)).toEqual(['CVE-2021-3782']);
    expect(await recordsOfProduct(reader, 'nobody', 'nothing')).toEqual([]);
    expect(records.find((r) => r.id === 'CVE-2021-42386')?.epss?.probability).toBe(0.5);
    expect((await recordsOfProduct(reader, 'dropbear_ssh_project', 'dropbear_ssh')).length).toBeGreaterThan(0);
  });

  it('a newer record replaces the older one and its index; an older one is ignored', async () => {
    const repo = new VulnerabilityImporter(get().db);
    const reader = new VulnerabilityReader(get().db);
    const base: VulnerabilityRecord = {
      id: 'CVE-2099-0001', aliases: [], source: 'nvd', cwes: [], cvss: {}, references: [], modified: '2024-01-01T00:00:00.000Z',
      criteria: [[{ criteria: 'cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*', vulnerable: true, versionEndExcluding: '2.0' }]],
    };
    expect(await repo.putRecord(base)).toBe('inserted');
    const moved = { ...base, modified: '2024-06-01T00:00:00.000Z', criteria: [[{ criteria: 'cpe:2.3:a:acme:gadget:*:*:*:*:*:*:*:*', vulnerable: true }]] };
    expect(await repo.putRecord(moved)).toBe('updated');
    expect(await recordsOfProduct(reader, 'acme', 'widget')).toEqual([]);
    expect((await recordsOfProduct(reader, 'acme', 'gadget')).map((r) => r.modified)).toEqual(['2024-06-01T00:00:00.000Z']);
    expect(await repo.putRecord({ ...base, description: 'stale' })).toBe('unchanged');
    expect((await recordsOfProduct(reader, 'acme', 'gadget'))[0]!.description).toBeUndefined();
  });

  it('a batch writes like one record after the other: a record met twice, replaced, unchanged', async () => {
    const { db } = get();
    const repo = new VulnerabilityImporter(db);
    const reader = new VulnerabilityReader(db);
    const record = (id: string, modified: string, end: string): VulnerabilityRecord => ({
      id, aliases: [], source: 'nvd', cwes: [], cvss: {}, references: [], modified,
      criteria: [[{ criteria: 'cpe:2.3:a:batch:thing:*:*:*:*:*:*:*:*', vulnerable: true, versionEndExcluding: end }]],
    });
    expect(await repo.putRecord(record('CVE-2097-0001', '2024-01-01T00:00:00.000Z', '1.0'))).toBe('inserted');
    const results = await writeRecords(db, [
      record('CVE-2097-0001', '2024-01-01T00:00:00.000Z', '1.0'), // as stored
      record('CVE-2097-0002', '2024-01-01T00:00:00.000Z', '2.0'), // new
      record('CVE-2097-0002', '2024-02-01T00:00:00.000Z', '3.0'), // newer, same batch
      record('CVE-2097-0002', '2023-01-01T00:00:00.000Z', '9.0'), // older, same batch
      record('CVE-2097-0001', '2024-03-01T00:00:00.000Z', '4.0'), // newer than stored
    ]);
    expect(results).toEqual(['unchanged', 'inserted', 'updated', 'unchanged', 'updated']);
    const criteria = await db.selectFrom('vuln_criteria').select(['record_id', 'end_excluding']).where('vendor', '=', 'batch').orderBy('record_id').execute();
    expect(criteria).toEqual([{ record_id: 'CVE-2097-0001', end_excluding: '4.0' }, { record_id: 'CVE-2097-0002', end_excluding: '3.0' }]);
    const aliases = await db.selectFrom('vuln_aliases').select(['alias']).where('record_id', 'like', 'CVE-2097-%').orderBy('alias').execute();
    expect(aliases.map((a) => a.alias)).toEqual(['CVE-2097-0001', 'CVE-2097-0002']);
    expect((await recordsOfProduct(reader, 'batch', 'thing')).map((r) => r.modified).sort()).toEqual(['2024-02-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z']);
  });

  it.runIf(hasData)('an entry from an older KEV catalog never replaces one from a newer catalog; re-importing is a no-op', async () => {
    const { db } = get();
    const repo = new VulnerabilityImporter(db);
    const reader = new VulnerabilityReader(db);
    const ransomware = async () => (await db.selectFrom('vuln_kev').select(['known_ransomware_campaign_use', 'catalog_date']).where('cve_id', '=', 'CVE-2024-57727').executeTakeFirstOrThrow());
    // the full catalog (2025-08-25) says Known; the sample catalog (2025-02-19) still said Unknown
    await repo.importItems(readFeeds([vulndata('cisa-kev-known_exploited_vulnerabilities.json')]));
    expect(await ransomware()).toEqual({ known_ransomware_campaign_use: 'Known', catalog_date: '2025-08-25T17:04:19.979Z' });
    const older = await repo.importItems(readFeeds([vulndata('cisa-kev-sample-catalog.json')]));
    expect(older.changed.size).toBe(0);
    expect((await ransomware()).known_ransomware_campaign_use).toBe('Known');
    // the folder holds both catalogs, the older one read last: importing it again and again changes nothing
    for (let run = 0; run < 2; run++) {
      const again = await repo.importItems(readFeeds([vulndata('cisa-kev-known_exploited_vulnerabilities.json'), vulndata('cisa-kev-sample-catalog.json')]));
      expect(again.changed.size).toBe(0);
      expect((await ransomware()).known_ransomware_campaign_use).toBe('Known');
    }
  });

  it('a change to records, KEV or EPSS requests a re-match in its own transaction; only the re-match it asked for clears it', async () => {
    const { db } = get();
    const repo = new VulnerabilityImporter(db);
    const reader = new VulnerabilityReader(db);
    const record: VulnerabilityRecord = { id: 'CVE-2096-0001', aliases: [], source: 'nvd', cwes: [], cvss: {}, references: [], criteria: [], modified: '2024-01-01T00:00:00.000Z' };
    // the earlier tests of this database left their request
    const earlier = await rematchRequestedAt(db);
    if (earlier) await clearRematch(db, earlier);
    expect(await rematchRequestedAt(db)).toBeUndefined();
    await writeRecords(db, [record], '2026-01-01T00:00:00.000Z');
    expect(await rematchRequestedAt(db)).toBe('2026-01-01T00:00:00.000Z');
    // a re-match that served an older request leaves the newer one pending
    await clearRematch(db, '2025-12-31T00:00:00.000Z');
    expect(await rematchRequestedAt(db)).toBe('2026-01-01T00:00:00.000Z');
    await clearRematch(db, '2026-01-01T00:00:00.000Z');
    expect(await rematchRequestedAt(db)).toBeUndefined();
    // writing the same record again changes nothing and requests nothing
    await writeRecords(db, [record], '2026-01-02T00:00:00.000Z');
    expect(await rematchRequestedAt(db)).toBeUndefined();
    expect(await repo.putKev([{ cveId: 'CVE-2096-0001', dateAdded: '2026-01-01' }])).toEqual(['CVE-2096-0001']);
    const afterKev = await rematchRequestedAt(db);
    expect(afterKev).toBeDefined();
    await clearRematch(db, afterKev!);
    expect(await repo.putKev([{ cveId: 'CVE-2096-0001', dateAdded: '2026-01-01' }])).toEqual([]);
    expect(await rematchRequestedAt(db)).toBeUndefined();
    expect(await repo.putEpss([{ cveId: 'CVE-2096-0001', probability: 0.5, percentile: 0.9 }])).toEqual(['CVE-2096-0001']);
    expect(await rematchRequestedAt(db)).toBeDefined();
  });

  it('KEV catalog dates: equal or newer replaces, older is ignored, unknown dates let the later import win', async () => {
    const { db } = get();
    const repo = new VulnerabilityImporter(db);
    const reader = new VulnerabilityReader(db);
    const entry = (action: string, catalogDate?: string) => ({ cveId: 'CVE-2098-0001', dateAdded: '2024-01-01', requiredAction: action, ...(catalogDate ? { catalogDate } : {}) });
    const action = async () => (await db.selectFrom('vuln_kev').select(['required_action', 'catalog_date']).where('cve_id', '=', 'CVE-2098-0001').executeTakeFirstOrThrow());
    expect(await repo.putKev([entry('first')])).toEqual(['CVE-2098-0001']);
    expect(await action()).toEqual({ required_action: 'first', catalog_date: null });
    expect(await repo.putKev([entry('dated', '2025-03-01T00:00:00.000Z')])).toEqual(['CVE-2098-0001']);
    expect(await repo.putKev([entry('older', '2025-02-01T00:00:00.000Z')])).toEqual([]);
    expect(await action()).toEqual({ required_action: 'dated', catalog_date: '2025-03-01T00:00:00.000Z' });
    expect(await repo.putKev([entry('same day', '2025-03-01T00:00:00.000Z')])).toEqual(['CVE-2098-0001']);
    // a newer catalog saying the same thing moves the date on but changes nothing to re-match
    expect(await repo.putKev([entry('same day', '2025-04-01T00:00:00.000Z')])).toEqual([]);
    expect(await repo.putKev([entry('between', '2025-03-15T00:00:00.000Z')])).toEqual([]);
    expect(await action()).toEqual({ required_action: 'same day', catalog_date: '2025-04-01T00:00:00.000Z' });
    expect(await repo.putKev([entry('undated')])).toEqual(['CVE-2098-0001']);
    expect(await action()).toEqual({ required_action: 'undated', catalog_date: null });
    // in one batch too
    expect(await repo.putKev([entry('b1', '2025-06-01T00:00:00.000Z'), entry('b0', '2025-05-01T00:00:00.000Z')])).toEqual(['CVE-2098-0001']);
    expect((await action()).required_action).toBe('b1');
  });

  it.runIf(hasData)('a truncated feed imports what precedes the damage and reports the file', async () => {
    const repo = new VulnerabilityImporter(get().db);
    const reader = new VulnerabilityReader(get().db);
    const text = readFileSync(vulndata('cisa-kev-sample-catalog.json'), 'utf8');
    const file = join(tempDir('firmscope-kev'), 'kev.json');
    writeFileSync(file, text.slice(0, text.indexOf('CVE-2024-57727')));
    const summary = await repo.importItems(readFeeds([file]));
    expect(summary.kev).toBe(2);
    expect(summary.errors).toHaveLength(1);
    expect(summary.errors[0]!.file).toBe(file);
  });
});

// Imports at once (a scheduled sync and a manual import of the same data): every one succeeds, each record, KEV
// entry and EPSS score is written once, and the feeds' dates are recorded.
describeEachDatabase('vulnerability imports at once', (get) => {
  it.runIf(hasData)('three imports of the same feeds on three connections at once all succeed and store the data once', async () => {
    const { db, url, dataDir } = get();
    const dir = tempDir('firmscope-epss');
    writeFileSync(join(dir, 'epss.csv'), '#model_version:v2025.03.14,score_date:2025-08-25T00:00:00Z\ncve,epss,percentile\nCVE-2021-42386,0.5,0.97\nCVE-2022-28391,0.2,0.9\n');
    const paths = [vulndata('nvd-corpus'), vulndata('cisa-kev-known_exploited_vulnerabilities.json'), join(dir, 'epss.csv')];
    const others = [await openDatabase({ url, dataDir }), await openDatabase({ url, dataDir })];
    try {
      const summaries = await Promise.all([db, ...others.map((o) => o.db)].map((d) => new VulnerabilityImporter(d).importItems(readFeeds(paths))));
      expect(summaries.map((s) => s.errors)).toEqual([[], [], []]);
      expect(summaries.reduce((n, s) => n + s.inserted, 0)).toBe(44);
      expect(summaries.reduce((n, s) => n + s.unchanged, 0)).toBe(88);
      const repo = new VulnerabilityImporter(db);
    const reader = new VulnerabilityReader(db);
      expect(await tableCounts(repo)).toEqual({ records: [{ source: 'nvd', count: 44 }], kev: 1404, epss: 2 });
      const status = await repo.status();
      expect(status.feeds.map((f) => f.feed)).toEqual(['epss', 'kev', 'nvd']);
      expect(status.feeds.find((f) => f.feed === 'kev')?.feedDate).toBe('2025-08-25T17:04:19.9796Z');
    } finally {
      await Promise.all(others.map((o) => o.close()));
    }
  });

  it('recording a feed keeps the newest date and the last cursor given', async () => {
    const repo = new VulnerabilityImporter(get().db);
    const reader = new VulnerabilityReader(get().db);
    await repo.setFeed('osv', '2026-01-02T00:00:00Z', 'c1');
    await repo.setFeed('osv', '2026-01-01T00:00:00Z');
    expect(await repo.feed('osv')).toEqual({ feedDate: '2026-01-02T00:00:00Z', cursor: 'c1' });
    await repo.setFeed('osv', null, 'c2');
    expect(await repo.feed('osv')).toEqual({ feedDate: '2026-01-02T00:00:00Z', cursor: 'c2' });
    await repo.setFeed('osv', '2026-01-03T00:00:00Z');
    expect(await repo.feed('osv')).toEqual({ feedDate: '2026-01-03T00:00:00Z', cursor: 'c2' });
  });
});
