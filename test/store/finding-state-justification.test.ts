// Migration 0003 on a database that already has finding statuses: the current state takes the comment of its
// latest history entry, and has no justification (none was recorded before 0003). Both dialects.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { migrations } from '../../src/store/migrations/index.js';
import { freshPostgresUrl, testDialects } from '../support/databases.js';

for (const dialect of testDialects()) {
  describe(`migration 0003-finding-state-justification [${dialect}]`, () => {
    it('backfills the current comment from the history of existing states', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'firmscope-0003-'));
      const pg = dialect === 'postgres' ? await freshPostgresUrl() : undefined;
      try {
        const before = await openDatabase({ url: pg?.url, dataDir, migrations: migrations.filter(([name]) => name !== '0003-finding-state-justification') });
        const db = before.db as any;
        await db.insertInto('finding_statuses').values([
          { product_id: 'p', fingerprint: 'a', status: 'rejected', update_time: '2026-01-02T00:00:00.000Z' },
          { product_id: 'p', fingerprint: 'b', status: 'inProgress', update_time: '2026-01-02T00:00:00.000Z' },
        ]).execute();
        const history = (id: string, fingerprint: string, status: string, comment: string | null, time: string) =>
          ({ id, product_id: 'p', fingerprint, finding_id: 'f', status, comment, author_id: 'u', create_time: time });
        await db.insertInto('finding_status_history').values([
          history('01', 'a', 'inProgress', 'looking', '2026-01-01T00:00:00.000Z'),
          history('02', 'a', 'rejected', 'not built in', '2026-01-02T00:00:00.000Z'),
          history('03', 'b', 'inProgress', null, '2026-01-02T00:00:00.000Z'),
        ]).execute();
        await before.close();

        const after = await openDatabase({ url: pg?.url, dataDir });
        try {
          const rows = await after.db.selectFrom('finding_statuses').select(['fingerprint', 'status', 'comment', 'justification']).orderBy('fingerprint').execute();
          expect(rows).toEqual([
            { fingerprint: 'a', status: 'rejected', comment: 'not built in', justification: null },
            { fingerprint: 'b', status: 'inProgress', comment: null, justification: null },
          ]);
          expect((await after.db.selectFrom('finding_status_history').select('justification').execute()).every((r) => r.justification === null)).toBe(true);
        } finally {
          await after.close();
        }
      } finally {
        await pg?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
