// vuln_criteria on both databases: the store's criteria-first matching (SQL version-key filter included) finds
// exactly what matching every record in memory finds; records replaced or imported before the table existed
// (the migration fills it) are indexed like new ones.
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { VulnerabilityMatcher } from '../../src/engine/vulns/matcher.js';
import { MemoryVulnerabilitySource } from '../../src/engine/vulns/memory-source.js';
import type { VulnerabilityRecord, VulnerabilitySource } from '../../src/engine/vulns/source.js';
import { criteriaFor } from '../../src/store/vulns-criteria.js';
import { openDatabase } from '../../src/store/database.js';
import { VulnerabilityImporter } from '../../src/store/vulns-importer.js';
import { VulnerabilityReader } from '../../src/store/vulns-reader.js';
import { component, matchSummary, randomInventory, randomRecords, rng } from '../engine/vulns/generated-criteria.js';
import { describeEachDatabase } from '../support/databases.js';
import { unfiltered } from '../support/vuln-source.js';

describeEachDatabase('vulnerability criteria index', (get) => {
  const random = rng(21);
  const records = randomRecords(random, 800, 12);
  const inventory = randomInventory(random, 60, 12);

  it('criteria-first matching on the store equals record-by-record matching in memory', async () => {
    const repo = new VulnerabilityImporter(get().db);
    const reader = new VulnerabilityReader(get().db);
    const memory = new MemoryVulnerabilitySource();
    for (const record of records) {
      await repo.putRecord(record);
      memory.putRecord(record);
    }
    const recordsOnly = unfiltered(memory);
    const problems: unknown[] = [];
    const stored = await new VulnerabilityMatcher(reader).matchAll(inventory, problems as never);
    expect(problems).toEqual([]);
    expect(stored.length).toBeGreaterThan(100);
    expect(matchSummary(stored)).toEqual(matchSummary(await new VulnerabilityMatcher(recordsOnly).matchAll(inventory, [])));
    // the SQL filter really filters: for a plain version, fewer rows than the pair has
    const all = (await criteriaFor(get().db, [{ vendor: 'acme', product: 'p1', version: '1.0.2k' }])).get('acme\0p1')!;
    const some = (await criteriaFor(get().db, [{ vendor: 'acme', product: 'p1', version: '3.1' }])).get('acme\0p1')!;
    expect(some.length).toBeGreaterThan(0);
    expect(some.length).toBeLessThan(all.length / 2);
  });

  it('a replaced record leaves no criteria behind', async () => {
    const repo = new VulnerabilityImporter(get().db);
    const reader = new VulnerabilityReader(get().db);
    const base = { id: 'CVE-2098-0001', aliases: [], source: 'nvd', cwes: [], cvss: {}, references: [], modified: '2024-01-01T00:00:00.000Z' };
    await repo.putRecord({ ...base, criteria: [[{ criteria: 'cpe:2.3:a:zeta:gizmo:*:*:*:*:*:*:*:*', vulnerable: true, versionEndExcluding: '2.0' }]] });
    const gizmo = component('zeta', 'gizmo', '1.5');
    expect((await new VulnerabilityMatcher(reader).matchAll([gizmo], [])).map((f) => f.pname)).toEqual(['CVE-2098-0001']);
    await repo.putRecord({ ...base, modified: '2024-02-01T00:00:00.000Z', criteria: [[{ criteria: 'cpe:2.3:a:zeta:gizmo:*:*:*:*:*:*:*:*', vulnerable: true, versionEndExcluding: '1.2' }]] });
    expect(await new VulnerabilityMatcher(reader).matchAll([gizmo], [])).toEqual([]);
    const rows = await get().db.selectFrom('vuln_criteria').selectAll().where('record_id', '=', 'CVE-2098-0001').execute();
    expect(rows.map((r) => r.end_excluding)).toEqual(['1.2']);
  });

  it('a record replaced in the same millisecond still gets a new version stamp', async () => {
    const repo = new VulnerabilityImporter(get().db);
    const now = '2025-05-05T05:05:05.005Z';
    const base = { id: 'CVE-2098-0003', aliases: [], source: 'nvd', cwes: [], cvss: {}, references: [] };
    const criteria = (end: string) => [[{ criteria: 'cpe:2.3:a:zeta:gadget:*:*:*:*:*:*:*:*', vulnerable: true, versionEndExcluding: end }]];
    await repo.putRecord({ ...base, modified: '2024-01-01T00:00:00.000Z', criteria: criteria('2.0') }, now);
    await repo.putRecord({ ...base, modified: '2024-02-01T00:00:00.000Z', criteria: criteria('1.2') }, now);
    const record = await get().db.selectFrom('vuln_records').select('imported_at').where('record_id', '=', 'CVE-2098-0003').executeTakeFirstOrThrow();
    const rows = await get().db.selectFrom('vuln_criteria').select('imported_at').where('record_id', '=', 'CVE-2098-0003').execute();
    expect(record.imported_at).toBe('2025-05-05T05:05:05.006Z');
    expect(rows.map((r) => r.imported_at)).toEqual([record.imported_at]);
  });

  it('the migration indexes the records of a database that predates vuln_criteria', async () => {
    const { db, url, dataDir } = get();
    const before = await db.selectFrom('vuln_criteria').selectAll().orderBy('source').orderBy('record_id').orderBy('config_index').orderBy('criterion_index').execute();
    expect(before.length).toBeGreaterThan(800);
    // the database as it was before migration 0101
    await db.schema.dropTable('vuln_criteria').execute();
    await db.deleteFrom('kysely_migration' as never).where(sql.ref('name'), '=', '0101-vulnerability-criteria').execute();
    const reopened = await openDatabase({ url, dataDir });
    try {
      const after = await reopened.db.selectFrom('vuln_criteria').selectAll().orderBy('source').orderBy('record_id').orderBy('config_index').orderBy('criterion_index').execute();
      expect(after).toEqual(before);
      const repo = new VulnerabilityImporter(reopened.db);
    const reader = new VulnerabilityReader(reopened.db);
      const memory = new MemoryVulnerabilitySource();
      for (const record of records) memory.putRecord(record);
      const expected = await new VulnerabilityMatcher(memory).matchAll(inventory, []);
      expect(matchSummary(await new VulnerabilityMatcher(reader).matchAll(inventory, []))).toEqual(matchSummary(expected));
    } finally {
      await reopened.close();
    }
  });
});

describeEachDatabase('vulnerability criteria index, a record replaced during matching', (get) => {
  it('matches the record as it now is when it changes between its criteria and its loading', async () => {
    const repo = new VulnerabilityImporter(get().db);
    const reader = new VulnerabilityReader(get().db);
    const memory = new MemoryVulnerabilitySource();
    const base = { id: 'CVE-2098-0002', aliases: [], source: 'nvd', cwes: [], cvss: {}, references: [], modified: '2024-01-01T00:00:00.000Z' };
    const before = { ...base, criteria: [[{ criteria: 'cpe:2.3:a:zeta:widget:*:*:*:*:*:*:*:*', vulnerable: true, versionEndExcluding: '2.0' }]] };
    // the new version moves the criterion: its old position now holds another product's
    const after = {
      ...base, modified: '2024-02-01T00:00:00.000Z',
      criteria: [[{ criteria: 'cpe:2.3:a:zeta:other:*:*:*:*:*:*:*:*', vulnerable: true }, { criteria: 'cpe:2.3:a:zeta:widget:*:*:*:*:*:*:*:*', vulnerable: true, versionEndIncluding: '1.6' }]],
    };
    const widget = component('zeta', 'widget', '1.5');
    const sources: Array<[VulnerabilitySource, { putRecord(r: VulnerabilityRecord): unknown }]> = [[reader, repo], [memory, memory]];
    for (const [source, writer] of sources) {
      await writer.putRecord(before);
      // a source that replaces the record right after handing out its criteria
      const racing: VulnerabilitySource = {
        query: (q) => source.query({ ...q, select: async (criteria) => {
          const keys = await q.select(criteria);
          await writer.putRecord(after);
          return keys;
        } }),
      };
      const findings = await new VulnerabilityMatcher(racing).matchAll([widget], []);
      expect(findings.map((f) => f.pname)).toEqual(['CVE-2098-0002']);
      expect((findings[0]!.match as { matches: Array<{ range?: unknown }> }).matches.map((m) => m.range)).toEqual([{ endIncluding: '1.6' }]);
    }
  });
});
