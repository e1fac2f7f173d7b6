// The outcome rules over HTTP, on both databases: a truncated container ends `done` but incomplete (the scan's
// summary, its problems paged and filtered by level, the image's analysis field, the findings JSON and PDF and both
// SBOMs say so and why); a plain text file ends `failed` with a reason naming what it looks like; a lone corpus
// ELF and a PEM key stay done and complete.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../support/databases.js';
import { ADMIN, call, passwordToken, startTestServer, uploadAndScan, waitFor, type TestServer } from '../support/server.js';
import { needCommands } from '../support/requirements.js';
import { corpus, haveShared } from '../support/shared.js';

// The findings PDF is read back with pdftotext (poppler-utils): declared here, so its absence is a visible skip.
const havePoppler = needCommands(['pdftotext'], 'the findings PDF outcome tests');

for (const dialect of testDialects()) {
  describe(`scan outcome over HTTP [${dialect}]`, () => {
    let t: TestServer;
    let token: string;
    let productId: string;
    const image = (id: string) => `/api/v4/products/${productId}/images/${id}`;
    const latestScan = async (imageId: string) => (await call(t.base, token, 'GET', `${image(imageId)}/scans`)).body.scans[0];

    beforeAll(async () => {
      t = await startTestServer({ postgres: dialect === 'postgres' });
      token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
      productId = (await call(t.base, token, 'POST', '/api/v4/products', { name: 'outcomes' })).body.id.split('/')[1];
    });
    afterAll(async () => t?.close());

    describe('a truncated gzip', () => {
      let imageId: string;
      let scanId: string;
      beforeAll(async () => {
        imageId = await uploadAndScan(t.base, token, productId, 'broken', 'broken.gz', gzipSync(randomBytes(100_000)).subarray(0, 60_000));
        scanId = (await latestScan(imageId)).id;
      }, 150_000);

      it('ends done, with a summary that says incomplete and why', async () => {
        const scan = (await call(t.base, token, 'GET', `${image(imageId)}/scans/${scanId}`)).body;
        expect(scan.latestScanState.type).toBe('done');
        expect(scan.summary).toMatchObject({
          complete: false, incompleteReasons: [expect.stringMatching(/^broken\.gz at 0: gzip: truncated stream/)],
          problems: { info: 0, warning: 0, error: 1 }, filesExtracted: 0, coverage: 0, formats: {},
        });
        expect(Object.keys(scan.summary.phases)).toEqual(expect.arrayContaining(['hash', 'unpack']));
      });

      it('the image says its analysis is incomplete, keeping its other fields', async () => {
        const body = (await call(t.base, token, 'GET', image(imageId))).body;
        expect(body.analysis).toEqual({ scanId, state: 'done', complete: false, reasons: [expect.stringMatching(/gzip: truncated stream/)] });
        expect(body.counts).toBeDefined();
        expect(body.hashes.sha256).toMatch(/^[0-9a-f]{64}$/);
      });

      it('the problems route lists the error, filtered by level', async () => {
        const all = await call(t.base, token, 'GET', `${image(imageId)}/scans/${scanId}/problems`);
        expect(all.status).toBe(200);
        expect(all.body).toEqual({ total: 1, rows: [{ level: 'error', kind: 'error', source: 'gzip', path: 'broken.gz', offset: 0, message: expect.stringMatching(/^gzip: truncated stream/) }] });
        expect((await call(t.base, token, 'GET', `${image(imageId)}/scans/${scanId}/problems?level=info,warning`)).body).toEqual({ total: 0, rows: [] });
        expect((await call(t.base, token, 'GET', `${image(imageId)}/scans/${scanId}/problems?level=error&page=2&size=1`)).body).toEqual({ total: 1, rows: [] });
        const bad = await call(t.base, token, 'GET', `${image(imageId)}/scans/${scanId}/problems?level=fatal`);
        expect(bad.status).toBe(400);
        expect(bad.body.message).toContain(`unknown level 'fatal'`);
        expect((await call(t.base, token, 'GET', `${image(imageId)}/scans/${scanId}/problems?size=101`)).status).toBe(400);
      });

      it('the findings JSON says incomplete and why', async () => {
        const report = await call(t.base, token, 'POST', `${image(imageId)}/findingsReport:json`, {});
        expect(report.status).toBe(200);
        expect(report.body.analysis).toEqual({ complete: false, incompleteReasons: [expect.stringMatching(/gzip: truncated stream/)] });
      });

      it.runIf(havePoppler)('the findings PDF says incomplete and why', async () => {
        const pdf = await call(t.base, token, 'GET', `${image(imageId)}?contentType=pdf&imageFields=findings`);
        expect(pdf.status).toBe(200);
        const dir = mkdtempSync(join(tmpdir(), 'fs-outcome-pdf-'));
        try {
          writeFileSync(join(dir, 'r.pdf'), pdf.body as Buffer);
          const text = execFileSync('pdftotext', [join(dir, 'r.pdf'), '-']).toString().replace(/\s+/g, ' ');
          expect(text).toContain('ANALYSIS INCOMPLETE');
          expect(text).toContain('broken.gz at 0: gzip: truncated stream');
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });

      it('both SBOMs say incomplete and why', async () => {
        const cdx = (await call(t.base, token, 'GET', `${image(imageId)}/sbomReport:cycloneDX?contentType=json`)).body;
        expect(cdx.metadata.properties).toEqual([
          { name: 'firmscope:analysisComplete', value: 'false' },
          { name: 'firmscope:analysisIncompleteReason', value: expect.stringMatching(/gzip: truncated stream/) },
        ]);
        const spdx = (await call(t.base, token, 'GET', `${image(imageId)}/sbomReport:SPDX?contentType=json`)).body;
        const root = spdx.packages.find((p: { SPDXID: string }) => p.SPDXID === 'SPDXRef-Image');
        expect(root.annotations[0].comment).toMatch(/^analysis incomplete: broken\.gz at 0: gzip: truncated stream/);
      });
    });

    it('a plain text file ends failed with the reason; the problems route answers 422', async () => {
      const form = new FormData();
      form.set('imageName', 'notes');
      form.set('file', new Blob([Buffer.from('release notes\n'.repeat(50))]), 'notes.txt');
      const imageId = (await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload`, form)).body.id;
      const scan = await waitFor(async () => {
        const s = await latestScan(imageId);
        return s.latestScanState.type === 'failed' || s.latestScanState.type === 'done' ? s : undefined;
      }, 120_000);
      expect(scan.latestScanState).toMatchObject({ type: 'failed', error: { message: 'no known firmware format; the file looks like ASCII text' } });
      expect(scan.summary).toBeUndefined();
      const body = (await call(t.base, token, 'GET', image(imageId))).body;
      expect(body.analysis).toEqual({ scanId: scan.id, state: 'failed', complete: false, reasons: ['no known firmware format; the file looks like ASCII text'] });
      expect((await call(t.base, token, 'GET', `${image(imageId)}/scans/${scan.id}/problems`)).status).toBe(422);
    }, 150_000);

    it.runIf(haveShared('corpus', 'trendnet-tew733gr-rootfs.squashfs'))('a truncated corpus SquashFS ends done and incomplete', async () => {
      const bytes = (await readFile(corpus('trendnet-tew733gr-rootfs.squashfs'))).subarray(0, 1_500_000);
      const imageId = await uploadAndScan(t.base, token, productId, 'rootfs', 'rootfs.squashfs', bytes);
      const scan = await latestScan(imageId);
      expect(scan.summary.complete).toBe(false);
      expect(scan.summary.incompleteReasons[0]).toMatch(/squashfs-v4: truncated: SquashFS says 3647665 bytes, only 1500000 available/);
      const errors = await call(t.base, token, 'GET', `${image(imageId)}/scans/${scan.id}/problems?level=error`);
      expect(errors.body.total).toBe(1);
      const warnings = await call(t.base, token, 'GET', `${image(imageId)}/scans/${scan.id}/problems?level=warning&size=1`);
      expect(warnings.body.rows.every((p: { level: string }) => p.level === 'warning')).toBe(true);
    }, 150_000);

    for (const name of ['busybox-mipsel', 'ssl.key']) {
      it.runIf(haveShared('corpus', name))(`the corpus ${name} alone stays done and complete`, async () => {
        const imageId = await uploadAndScan(t.base, token, productId, name, name, await readFile(corpus(name)));
        const scan = await latestScan(imageId);
        expect(scan.summary).toMatchObject({ complete: true, incompleteReasons: [], problems: { error: 0 } });
        expect((await call(t.base, token, 'GET', image(imageId))).body.analysis).toEqual({ scanId: scan.id, state: 'done', complete: true, reasons: [] });
      }, 150_000);
    }
  });
}
