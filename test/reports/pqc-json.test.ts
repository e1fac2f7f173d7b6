import { describe, expect, it } from 'vitest';
import { findReport } from '../../src/reports/index.js';
import { NOW, corpusScan, haveCorpus, useGeneratedScan } from './pqc-fixture.js';

const subject = {
  product: { id: '01JABCDEFGHJKMNPQRSTVWXYZ0', name: 'Router X' },
  image: { id: '01JABCDEFGHJKMNPQRSTVWXYZ1', name: 'router-x-1.2.bin', version: '1.2', createTime: '2026-11-01T00:00:00Z' },
  scan: { id: '01JABCDEFGHJKMNPQRSTVWXYZ2', createTime: '2026-11-01T00:00:00Z' },
};

type Finding = { name: string; cryptoAlgorithmName: string; cryptoAlgorithmPrimitive: string; isNistIR8547Compliant: boolean; quantumSecurityClass: string; component: string; cryptoProtocolName?: string; compliance: Array<{ nistIr8547: { algorithm: string; parameter: { parameter: string; transitions: unknown[] }; compliant?: unknown; notCompliant?: { recommendations: Array<{ algorithm: string; parameter: string; security: string }> } } }>; evidence: Array<{ path: string }> };

describe('PQC compliance report (JSON)', () => {
  const generated = useGeneratedScan();

  it('is registered as pqc-json with the alias pqc', () => {
    expect(findReport('pqc')?.id).toBe('pqc-json');
    expect(findReport('pqc-json')?.mediaType).toBe('application/json');
  });

  it('has the API-NOTES structure, with every detected algorithm classified and evidenced', async () => {
    const report = JSON.parse(String(await findReport('pqc')!.generate({ result: generated.result, subject, now: NOW })));
    expect(report).toMatchObject({ id: subject.scan.id, parent: `products/${subject.product.id}/images/${subject.image.id}`, name: 'router-x-1.2.bin', productName: 'Router X' });
    const findings = report.findings as Finding[];
    const byName = Object.fromEntries(findings.map((f) => [f.name, f]));
    expect(Object.keys(byName)).toEqual(expect.arrayContaining(['AES', 'AES-256-GCM', 'SHA-256', 'ML-KEM', 'RC4', '3DES-CBC', 'ECDSA-P-256', 'RSA-2048', 'SHA-1', 'DH-2048', 'ML-KEM-768']));
    expect(byName['RSA-2048']).toMatchObject({ cryptoAlgorithmName: 'RSA', cryptoAlgorithmPrimitive: 'pke', isNistIR8547Compliant: false, quantumSecurityClass: 'quantum-vulnerable' });
    expect(byName['RSA-2048']!.compliance[0]!.nistIr8547).toMatchObject({ algorithm: 'RSA', parameter: { parameter: '2048', transitions: [{ status: 'DEPRECATED', year: 2030 }, { status: 'DISALLOWED', year: 2035 }] } });
    expect(byName['RSA-2048']!.compliance[0]!.nistIr8547.notCompliant!.recommendations.map((r) => r.parameter)).toContain('ML-DSA-65');
    expect(byName['ML-KEM-768']).toMatchObject({ isNistIR8547Compliant: true, quantumSecurityClass: 'quantum-resistant', cryptoProtocolName: 'SSH' });
    expect(byName['ML-KEM-768']!.compliance[0]!.nistIr8547.compliant).toBeDefined();
    expect(byName['AES-256-GCM']!.component).toBe('openssl 1.1.1w');
    expect(byName['DH-2048']!.cryptoProtocolName).toBe('SSH');
    for (const f of findings) expect(f.evidence.length, f.name).toBeGreaterThan(0);
    // Every row agrees with itself: compliant exactly when it has nothing to migrate and its last status is ACCEPTABLE.
    for (const f of findings) {
      const { nistIr8547 } = f.compliance[0]!;
      const last = (nistIr8547.parameter.transitions as Array<{ status: string }>).at(-1)?.status;
      expect([f.isNistIR8547Compliant, nistIr8547.compliant !== undefined, last === 'ACCEPTABLE'], f.name).toEqual([f.isNistIR8547Compliant, f.isNistIR8547Compliant, f.isNistIR8547Compliant]);
      expect((nistIr8547.notCompliant?.recommendations.length ?? 0) > 0, f.name).toBe(!f.isNistIR8547Compliant);
    }
    expect(byName['SHA-256']).toMatchObject({ isNistIR8547Compliant: true, quantumSecurityClass: 'weakened' });
    // Most severe first.
    expect(findings[0]!.quantumSecurityClass).toBe('broken');
    expect(report.summary).toMatchObject({ algorithms: findings.length, certificates: 1, privateKeys: 1, earliestTransition: { status: 'DISALLOWED', year: 2030 } });
    expect(report.summary.score).toBeGreaterThanOrEqual(0);
    expect(report.summary.score).toBeLessThanOrEqual(100);
    expect(report.certificates[0]).toMatchObject({ subject: 'CN=Firmscope Test Root', signatureAlgorithm: 'sha1WithRSAEncryption' });
  });

  it('names the image after its file offline', async () => {
    const report = JSON.parse(String(await findReport('pqc')!.generate({ result: generated.result, now: NOW })));
    expect(report).toMatchObject({ name: 'rootfs.bin', productName: '', parent: 'rootfs.bin' });
  });

  it.skipIf(!haveCorpus())('corpus: Secure Boot certificates recommend stateful hash-based signatures; weak FACT key', async () => {
    const report = JSON.parse(String(await findReport('pqc')!.generate({ result: await corpusScan(), now: NOW })));
    const rsa2048 = (report.findings as Finding[]).find((f) => f.name === 'RSA-2048')!;
    expect(rsa2048.compliance[0]!.nistIr8547.notCompliant!.recommendations.map((r) => r.algorithm)).toEqual(['LMS', 'XMSS', 'ML-DSA']);
    expect((report.findings as Finding[]).find((f) => f.name === 'RSA-1024')!.compliance[0]!.nistIr8547.parameter.transitions).toEqual([{ status: 'DISALLOWED', year: 2013 }]);
    expect(report.summary).toMatchObject({ certificates: 5, expiredCertificates: 4, privateKeys: 2 });
  });

  it.skipIf(!haveCorpus())('corpus: matches the golden file', async () => {
    const report = String(await findReport('pqc')!.generate({ result: await corpusScan(), subject, now: NOW }));
    await expect(report + '\n').toMatchFileSnapshot('golden/pqc-corpus.json');
  });
});
