// Debug files over HTTP, on both databases: a stripped ELF image is scanned (its CWE-676 finding names no
// caller), its debug file is attached, which queues a scan whose finding evidence names the calling functions,
// the status carrying forward to it (same fingerprint); `rescan=false` queues nothing; a debug file of another
// build gives the next scan a warning problem.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildElfWithDebug, type ElfDebugBuild } from '../engine/binaries/debug-inputs.js';
import { needCommands } from '../support/requirements.js';
import { testDialects } from '../support/databases.js';
import { ADMIN, call, passwordToken, startTestServer, uploadAndScan, waitFor, type TestServer } from '../support/server.js';

const available = needCommands(['gcc', 'objcopy', 'strip'], 'the debug-file API tests');

for (const dialect of testDialects()) {
  describe.runIf(available)(`debug files over HTTP [${dialect}]`, () => {
    let t: TestServer;
    let token: string;
    let productId: string;
    let imageId: string;
    let dir: string;
    let built: ElfDebugBuild;
    let other: ElfDebugBuild;
    const image = () => `/api/v4/products/${productId}/images/${imageId}`;
    const scans = async (): Promise<Array<{ id: string }>> => (await call(t.base, token, 'GET', `${image()}/scans`)).body.scans;
    const attach = (path: string, name: string, query = '') => {
      const form = new FormData();
      form.set('file', new Blob([readFileSync(path)]), name);
      return call(t.base, token, 'POST', `${image()}/files${query}`, form);
    };
    const waitDone = (scanId: string) =>
      waitFor(async () => {
        const state = (await call(t.base, token, 'GET', `${image()}/scans/${scanId}`)).body.latestScanState?.type;
        if (state === 'failed') throw new Error(`scan ${scanId} failed`);
        return state === 'done' ? true : undefined;
      }, 120_000);
    const unsafeFinding = async () => {
      const rows = (await call(t.base, token, 'POST', '/api/v4/grids/findings:gridList', { filters: [{ field: 'imageId', value: imageId }, { field: 'pname', value: 'unsafe-function-use' }] })).body.rows;
      expect(rows).toHaveLength(1);
      return (await call(t.base, token, 'GET', `/api/v4/products/${productId}/findings/${rows[0].id}`)).body;
    };
    const evidenceOf = (finding: { occurrences: Array<{ scanId: string; evidence?: string }> }, scanId: string) => finding.occurrences.find((o) => o.scanId === scanId)?.evidence;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'debug-files-api-'));
      built = buildElfWithDebug(dir, 'tool', 'gcc', ['-g']);
      other = buildElfWithDebug(dir, 'other', 'gcc', ['-g']);
      t = await startTestServer({ postgres: dialect === 'postgres' });
      token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
      productId = (await call(t.base, token, 'POST', '/api/v4/products', { name: 'debug files' })).body.id.split('/')[1];
      imageId = await uploadAndScan(t.base, token, productId, 'tool', 'tool', readFileSync(built.stripped));
    }, 150_000);
    afterAll(async () => {
      await t?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('attaching the debug file queues a scan whose finding names the callers, its status carried forward', async () => {
      const [first] = await scans();
      const before = await unsafeFinding();
      expect(evidenceOf(before, first!.id)).toMatch(/^(strcpy|sprintf) ×1; (strcpy|sprintf) ×1$/);
      expect((await call(t.base, token, 'POST', `/api/v4/products/${productId}/findings/${before.id}/CreateFindingState`, { status: 'in progress' })).status).toBe(201);

      const attached = await attach(built.debug, 'tool.debug');
      expect(attached.status).toBe(201);
      expect(attached.body).toMatchObject({ filename: 'tool.debug', scanId: expect.any(String) });
      expect((await scans()).map((s) => s.id)).toContain(attached.body.scanId);
      await waitDone(attached.body.scanId);

      const after = await unsafeFinding();
      // The new scan's finding has the same fingerprint (rule + path), so the status carries forward to it.
      expect(after.id).not.toBe(before.id);
      expect(after.fingerprint).toBe(before.fingerprint);
      expect(after.issueStatus).toBe('inProgress');
      const evidence = evidenceOf(after, attached.body.scanId);
      expect(evidence).toContain('strcpy ×1 in copy_name ×1');
      expect(evidence).toContain('sprintf ×1 in format_it ×1');
      const warnings = await call(t.base, token, 'GET', `${image()}/scans/${attached.body.scanId}/problems?level=warning`);
      expect(warnings.body.total).toBe(0);
    }, 150_000);

    it('rescan=false queues nothing; a debug file of another build is a warning of the next scan', async () => {
      const count = (await scans()).length;
      const quiet = await attach(other.debug, 'other.debug', '?rescan=false');
      expect(quiet.status).toBe(201);
      expect(quiet.body.scanId).toBeUndefined();
      expect(await scans()).toHaveLength(count);
      expect((await attach(other.debug, 'other.debug', '?rescan=perhaps')).status).toBe(400);

      const started = await call(t.base, token, 'POST', `${image()}/scans`);
      expect(started.status).toBe(201);
      await waitDone(started.body.id);
      const warnings = await call(t.base, token, 'GET', `${image()}/scans/${started.body.id}/problems?level=warning`);
      expect(warnings.body.rows).toEqual([
        { level: 'warning', kind: 'warning', source: 'debug-files', path: 'other.debug', message: expect.stringMatching(/^debug file matches no binary of the image \(build-id [0-9a-f]+\); it was not used$/) },
      ]);
      // tool.debug is still attached and still used.
      expect(evidenceOf(await unsafeFinding(), started.body.id)).toContain('in copy_name ×1');
    }, 150_000);
  });
}
