// A real firmware volume (OVMF's Secure Boot variable store) through the real server: crypto-asset grid, image
// counts, the PQC compliance report (JSON and PDF), the CBOM and the knownVulnerability findings it raises.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, passwordToken, startTestServer, uploadAndScan, type TestServer } from '../support/server.js';
import { corpus, haveShared } from '../support/shared.js';

const IMAGE = 'OVMF_VARS.secboot.fd';

describe.runIf(haveShared('corpus', IMAGE))('crypto reports of a real image over HTTP', () => {
  let t: TestServer;
  let token: string;
  let productId: string;
  let imageId: string;
  let base: string;

  beforeAll(async () => {
    t = await startTestServer();
    token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
    const product = await call(t.base, token, 'POST', '/api/v4/products', { name: 'OVMF' });
    productId = product.body.id.split('/')[1];
    imageId = await uploadAndScan(t.base, token, productId, 'ovmf-vars', IMAGE, await readFile(corpus(IMAGE)));
    base = `/api/v4/products/${productId}/images/${imageId}`;
  }, 150_000);
  afterAll(async () => t?.close());

  it('lists the Secure Boot certificates in the crypto-asset grid and counts them on the image', async () => {
    const grid = await call(t.base, token, 'POST', '/api/v4/grids/cryptographicAssets:gridList', {
      filters: [{ field: 'imageId', value: imageId, comparator: 'equals' }],
      page: { num: 1, size: 100 },
    });
    expect(grid.status).toBe(200);
    const certificates = grid.body.rows.filter((r: { assetType: string }) => r.assetType === 'certificate');
    // Checked with openssl: PK/KEK hold Red Hat's key, KEK and db hold the three Microsoft 2011 certificates.
    expect(certificates.map((c: { name: string }) => c.name).sort()).toEqual([
      'Microsoft Corporation KEK CA 2011',
      'Microsoft Corporation UEFI CA 2011',
      'Microsoft Windows Production PCA 2011',
      'Red Hat Secure Boot (PK/KEK key 1)',
    ]);
    for (const c of certificates) expect(c.details).toMatchObject({ key: { keyType: 'RSA', bits: 2048 }, signatureAlgorithm: 'sha256WithRSAEncryption' });
    // Expiry depends on the day the test runs: compare with each certificate's own notAfter.
    const expired = certificates.filter((c: { details: { notAfter: string } }) => new Date(c.details.notAfter) < new Date());
    const image = await call(t.base, token, 'GET', base);
    expect(image.body.counts.cryptographicAssetsCount).toBe(grid.body.total);
    expect(image.body.counts.expiredCertificatesCount).toBe(expired.length);

    const findings = await call(t.base, token, 'POST', '/api/v4/grids/findings:gridList', {
      filters: [{ field: 'imageId', value: imageId, comparator: 'equals' }, { field: 'findingType', value: ['knownVulnerability'], comparator: 'in' }],
    });
    expect(findings.body.total).toBe(expired.length);
  });

  it('serves the PQC compliance report as JSON and PDF, and the CBOM', async () => {
    const pqc = await call(t.base, token, 'GET', `${base}/cryptographicMaterialsReport?mode=pqc-compliance&contentType=json`);
    expect(pqc.status).toBe(200);
    expect(pqc.body).toMatchObject({ id: expect.any(String), summary: expect.any(Object), findings: expect.any(Array) });
    const rsa = pqc.body.findings.find((f: { cryptoAlgorithmName: string }) => /RSA/.test(f.cryptoAlgorithmName));
    expect(rsa).toMatchObject({ isNistIR8547Compliant: false });
    const pdf = await call(t.base, token, 'GET', `${base}/cryptographicMaterialsReport?mode=pqc-compliance&contentType=pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect((pdf.body as Buffer).subarray(0, 5).toString()).toBe('%PDF-');
    const badMode = await call(t.base, token, 'GET', `${base}/cryptographicMaterialsReport?mode=other&contentType=json`);
    expect(badMode.status).toBe(400);
    const cbom = await call(t.base, token, 'GET', `${base}/cbomReport:cycloneDX`);
    expect(cbom.status).toBe(200);
    expect(cbom.body).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.6' });
    const assets = cbom.body.components.filter((c: { type: string }) => c.type === 'cryptographic-asset');
    expect(assets.some((c: { cryptoProperties: { assetType: string } }) => c.cryptoProperties.assetType === 'certificate')).toBe(true);
  });
});
