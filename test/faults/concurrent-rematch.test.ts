// Several `firmscope vulndb import` processes at once (a scheduled sync and a manual import, or an import re-run while
// the first still re-matches) on a server with a scanned BusyBox: each round imports a new generated record for
// BusyBox (the real NVD record of CVE-2021-42386 under a new id) with every process, and the latest scan must
// then hold that vulnerability as exactly one finding with one escalation, and every import must succeed (the
// writers wait for each other instead of failing on a lock or a duplicate key).
// First the same race without processes: two re-matches at once on two connections of one test.
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeeds } from '../../src/engine/vulns/feed-reader.js';
import { openDatabase } from '../../src/store/database.js';
import { reposOf } from '../support/repos-of.js';
import { rematchLatestImages } from '../../src/services/vuln-rematch.js';
import { VulnerabilityImporter } from '../../src/store/vulns-importer.js';
import { VulnerabilityReader } from '../../src/store/vulns-reader.js';
import { childEnv, FirmscopeProcess } from '../support/cli-process.js';
import { testDialects } from '../support/databases.js';
import { ADMIN, call, passwordToken, startTestServer, uploadAndScan, type TestServer } from '../support/server.js';
import { corpus, haveShared, sharedPath } from '../support/shared.js';

const RECORD = 'nvd-cve2.0-CVE-2021-42386.json';
const ROUNDS = 4;
const PROCESSES = 3;
const hasData = haveShared('corpus', 'busybox-mipsel') && haveShared('vulndata', RECORD);

for (const dialect of testDialects()) {
  describe.runIf(hasData)(`concurrent vulnerability imports re-match once [${dialect}]`, () => {
    let t: TestServer;
    let feedDir: string;
    let scanId: string;

    beforeAll(async () => {
      t = await startTestServer({ postgres: dialect === 'postgres' });
      feedDir = await mkdtemp(join(tmpdir(), 'firmscope-feeds-'));
      const token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
      const productId = String((await call(t.base, token, 'POST', '/api/v4/products', { name: 'router' })).body.id).split('/').pop()!;
      const imageId = await uploadAndScan(t.base, token, productId, 'busybox', 'busybox-mipsel', await readFile(corpus('busybox-mipsel')));
      scanId = (await t.server.runtime.repos.scans.latest(imageId, ['done']))!.id;
    }, 150_000);
    afterAll(async () => {
      await t?.close();
      if (feedDir) await rm(feedDir, { recursive: true, force: true });
    });

    /** The real NVD record of BusyBox's CVE-2021-42386 under the id `cve`, as a file. */
    async function recordFile(cve: string): Promise<string> {
      const file = join(feedDir, `${cve}.json`);
      await writeFile(file, (await readFile(sharedPath('vulndata', RECORD), 'utf8')).replaceAll('CVE-2021-42386', cve));
      return file;
    }
    const findingsOf = (cve: string) => t.server.runtime.database.db.selectFrom('findings').select('id').where('scan_id', '=', scanId).where('pname', '=', cve).execute();
    /** The escalations recorded for the finding of `cve` in the BusyBox scan. */
    const escalationsOf = (cve: string) => t.server.runtime.database.db.selectFrom('escalations').select('reason')
      .where('finding_fingerprint', 'in', (eb) => eb.selectFrom('findings').select('fingerprint').where('scan_id', '=', scanId).where('pname', '=', cve))
      .execute();

    it('two re-matches at once, on two connections, store a new vulnerability as one finding', async () => {
      const cve = 'CVE-2099-0999';
      await new VulnerabilityImporter(t.server.runtime.database.db).importItems(readFeeds([await recordFile(cve)]));
      const connections = [await openDatabase({ url: t.databaseUrl, dataDir: t.dataDir }), await openDatabase({ url: t.databaseUrl, dataDir: t.dataDir })];
      try {
        const outcomes = await Promise.allSettled(connections.map(({ db }) => rematchLatestImages(reposOf(db), new VulnerabilityReader(db))));
        const described = outcomes.map((o) => (o.status === 'fulfilled' ? `${o.value.newFindings} new findings` : `failed: ${String(o.reason)}`)).join('; ');
        expect(outcomes.some((o) => o.status === 'fulfilled'), described).toBe(true);
        expect((await findingsOf(cve)).length, `${cve} findings of the BusyBox scan after two re-matches (${described})`).toBe(1);
        expect(outcomes.every((o) => o.status === 'fulfilled'), described).toBe(true);
        expect(await escalationsOf(cve), described).toEqual([{ reason: 'new-vulnerability' }]);
      } finally {
        await Promise.all(connections.map((c) => c.close()));
      }
    });

    it(`${ROUNDS} rounds of ${PROCESSES} imports at once store each new vulnerability as one finding`, async () => {
      const env = childEnv({ FIRMSCOPE_DATA_DIR: t.dataDir, DATABASE_URL: t.databaseUrl, LOG_LEVEL: 'warn' });
      const log: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const cve = `CVE-2099-${1000 + round}`;
        const file = await recordFile(cve);
        const imports = Array.from({ length: PROCESSES }, (_, n) => new FirmscopeProcess(`import ${n}`, ['vulndb', 'import', file], env));
        const codes = await Promise.all(imports.map((p) => p.exited));
        imports.forEach((p, n) => log.push(`round ${round}, import ${n}: exit ${codes[n]}: ${p.tail.trim().replace(/\n/g, ' / ')}`));
        const context = log.join('\n');
        expect(codes.some((c) => c === 0), context).toBe(true);
        expect((await findingsOf(cve)).length, `${cve} findings of the BusyBox scan\n${context}`).toBe(1);
        expect(codes, `every import succeeds\n${context}`).toEqual(codes.map(() => 0));
        expect(await escalationsOf(cve), context).toEqual([{ reason: 'new-vulnerability' }]);
      }
      console.info(`concurrent imports [${dialect}]\n  ${log.join('\n  ')}`);
    }, 120_000);
  });
}
