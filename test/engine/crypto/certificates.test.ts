// Certificates: generated with openssl (RSA/EC/Ed25519, SHA-1 and MD5 signatures, CA and leaf), in PEM, DER,
// PKCS#7 and an EFI signature list; and the OVMF variable store of the corpus. The corpus expectations were
// checked by hand with `openssl x509 -inform DER` on the DER blobs carved from the EFI_SIGNATURE_LISTs:
// PK = Red Hat Secure Boot (PK/KEK key 1) (2014-10-31 .. 2037-10-25), KEK = that one plus Microsoft Corporation
// KEK CA 2011 (.. 2026-06-24), db = Microsoft Windows Production PCA 2011 (.. 2026-10-19) and Microsoft
// Corporation UEFI CA 2011 (.. 2026-06-27); all RSA-2048 with sha256WithRSAEncryption.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scan } from '../../../src/engine/scan.js';
import { createCryptoAnalyzer } from '../../../src/engine/crypto/analyzer.js';
import { corpus, haveShared } from '../../support/shared.js';
import { NOW, analyze, detectBuffer, pseudoRandom, tempDir } from './support.js';

let dir: string;
let cleanup: () => Promise<void>;
const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'ignore'] });
const pem = (name: string) => readFile(join(dir, `${name}.pem`));
const der = (name: string) => openssl('x509', '-in', join(dir, `${name}.pem`), '-outform', 'DER');

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  const req = (name: string, key: string[], digest: string, days: string, extra: string[] = []) =>
    openssl('req', '-x509', '-newkey', ...key, '-nodes', '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.pem`), '-subj', `/O=Firmscope Test/CN=${name}`, digest, '-days', days, ...extra);
  req('rsa-ca', ['rsa:2048'], '-sha256', '3650', ['-addext', 'basicConstraints=critical,CA:TRUE']);
  req('ec-leaf', ['ec', '-pkeyopt', 'ec_paramgen_curve:P-384'], '-sha384', '30', ['-addext', 'basicConstraints=CA:FALSE']);
  req('sha1', ['rsa:1024'], '-sha1', '365');
  req('md5', ['rsa:2048'], '-md5', '365');
  openssl('req', '-x509', '-newkey', 'ed25519', '-nodes', '-keyout', join(dir, 'ed.key'), '-out', join(dir, 'ed.pem'), '-subj', '/CN=ed25519', '-days', '365');
});
afterAll(() => cleanup());

describe('certificate facts', () => {
  it('describes PEM certificates: subject, issuer, serial, validity, key, signature, self-signed, CA', async () => {
    const [item] = (await detectBuffer(await pem('rsa-ca'))).materials;
    const text = openssl('x509', '-in', join(dir, 'rsa-ca.pem'), '-noout', '-serial', '-enddate').toString();
    expect(item).toMatchObject({ kind: 'certificate', format: 'PEM' });
    expect(item!.certificate).toMatchObject({
      subject: 'O=Firmscope Test, CN=rsa-ca', issuer: 'O=Firmscope Test, CN=rsa-ca', commonName: 'rsa-ca',
      serialNumber: /serial=([0-9A-F]+)/.exec(text)![1], signatureAlgorithm: 'sha256WithRSAEncryption', signatureHash: 'SHA-256',
      key: { keyType: 'RSA', bits: 2048 }, selfSigned: true, isCA: true, expired: false,
    });
    expect(new Date(item!.certificate!.notAfter).getTime()).toBe(new Date(/notAfter=(.*)/.exec(text)![1]!).getTime());
  });

  it('reads EC and Ed25519 certificates and weak signature hashes', async () => {
    const ec = (await detectBuffer(await pem('ec-leaf'))).materials[0]!.certificate!;
    expect(ec).toMatchObject({ signatureAlgorithm: 'ecdsa-with-SHA384', key: { keyType: 'EC', curve: 'P-384', bits: 384 }, isCA: false });
    const ed = (await detectBuffer(await pem('ed'))).materials[0]!.certificate!;
    expect(ed).toMatchObject({ signatureAlgorithm: 'Ed25519', key: { keyType: 'Ed25519' } });
    expect((await detectBuffer(await pem('sha1'))).materials[0]!.certificate).toMatchObject({ signatureHash: 'SHA-1', key: { bits: 1024 } });
    expect((await detectBuffer(await pem('md5'))).materials[0]!.certificate).toMatchObject({ signatureAlgorithm: 'md5WithRSAEncryption' });
  });

  it('marks expired and expiring certificates against the clock', async () => {
    const leaf = await pem('ec-leaf');
    expect((await detectBuffer(leaf, new Date(Date.now() + 5 * 86_400_000))).materials[0]!.certificate).toMatchObject({ expired: false, expiringSoon: true });
    expect((await detectBuffer(leaf, new Date(Date.now() + 60 * 86_400_000))).materials[0]!.certificate).toMatchObject({ expired: true });
  });

  it('carves DER certificates anywhere in a binary, and those of a PKCS#7 bundle', async () => {
    const blob = Buffer.concat([pseudoRandom(777), der('rsa-ca'), pseudoRandom(100, 2), der('ec-leaf'), pseudoRandom(50, 3)]);
    const found = (await detectBuffer(blob, NOW, 1000)).materials;
    expect(found.map((m) => [m.kind, m.format, m.offset, m.certificate?.commonName])).toEqual([
      ['certificate', 'DER', 777, 'rsa-ca'],
      ['certificate', 'DER', 777 + der('rsa-ca').length + 100, 'ec-leaf'],
    ]);
    const p7 = openssl('crl2pkcs7', '-nocrl', '-certfile', join(dir, 'rsa-ca.pem'), '-certfile', join(dir, 'ed.pem'));
    const bundle = (await detectBuffer(p7)).materials;
    expect(bundle.map((m) => m.certificate?.commonName).sort()).toEqual(['ed25519', 'rsa-ca']);
    expect(bundle.every((m) => m.encoding === 'PKCS#7')).toBe(true);
  });

  it('ignores truncated and corrupted certificates', async () => {
    const cert = der('rsa-ca');
    // The public key inside a truncated certificate is still a public key; the certificate is gone.
    expect((await detectBuffer(cert.subarray(0, cert.length - 10))).materials.filter((m) => m.kind === 'certificate')).toEqual([]);
    const broken = Buffer.from(cert);
    broken[6] = 0x31; // TBSCertificate tag: no longer a SEQUENCE
    expect((await detectBuffer(broken)).materials.filter((m) => m.kind === 'certificate')).toEqual([]);
  });

  it('names the EFI variable of a certificate inside an authenticated variable signature list', async () => {
    const cert = der('rsa-ca');
    // EFI GUIDs store their first three fields little-endian.
    const owner = Buffer.from('bd9afa775903324dbd6028f4e78f784b', 'hex');
    const list = Buffer.alloc(28);
    Buffer.from('a159c0a5e494a74a87b5ab155c2bf072', 'hex').copy(list, 0);
    list.writeUInt32LE(28 + 16 + cert.length, 16);
    list.writeUInt32LE(0, 20);
    list.writeUInt32LE(16 + cert.length, 24);
    const data = Buffer.concat([list, owner, cert]);
    const name = Buffer.from('db\0', 'utf16le');
    const header = Buffer.alloc(60);
    header.writeUInt16LE(0x55aa, 0);
    header[2] = 0x3f;
    header.writeUInt32LE(name.length, 36);
    header.writeUInt32LE(data.length, 40);
    const store = Buffer.concat([pseudoRandom(100), header, name, data, Buffer.alloc(64, 0xff)]);
    const [item] = (await detectBuffer(store)).materials;
    expect(item!.context).toEqual({ container: 'EFI signature list', signatureOwner: '77fa9abd-0359-4d32-bd60-28f4e78f784b', efiVariable: 'db' });
  });
});

describe.skipIf(!haveShared('corpus', 'OVMF_VARS.secboot.fd'))('corpus: OVMF Secure Boot variable store', () => {
  const expected = [
    ['Red Hat Secure Boot (PK/KEK key 1)', 'FEF588E8F396C0F1', '2014-10-31T11:15:37.000Z', '2037-10-25T11:15:37.000Z', false, ['KEK', 'PK']],
    ['Microsoft Corporation KEK CA 2011', '610AD188000000000003', '2011-06-24T20:41:29.000Z', '2026-06-24T20:51:29.000Z', true, ['KEK']],
    ['Microsoft Windows Production PCA 2011', '61077656000000000008', '2011-10-19T18:41:42.000Z', '2026-10-19T18:51:42.000Z', true, ['db']],
    ['Microsoft Corporation UEFI CA 2011', '6108D3C4000000000004', '2011-06-27T21:22:45.000Z', '2026-06-27T21:32:45.000Z', true, ['db']],
  ] as const;

  const check = (assets: Array<{ assetType: string; name: string; details: Record<string, unknown> }>) => {
    const certs = assets.filter((a) => a.assetType === 'certificate');
    expect(certs).toHaveLength(4);
    for (const [name, serial, from, to, expired, variables] of expected) {
      const cert = certs.find((c) => c.name === name)!;
      expect(cert.details, name).toMatchObject({ serialNumber: serial, notBefore: from, notAfter: to, expired, signatureAlgorithm: 'sha256WithRSAEncryption', key: { keyType: 'RSA', bits: 2048 } });
      const vars = (cert.details.contexts as Array<{ efiVariable?: string }>).map((c) => c.efiVariable).sort();
      expect(vars, name).toEqual([...variables]);
    }
  };

  it('finds the five signature-list certificates (four distinct) by carving the raw store', async () => {
    const ctx = await analyze(corpus(''), ['OVMF_VARS.secboot.fd']);
    check(ctx.cryptoAssets);
    // The three Microsoft 2011 certificates had expired on the pinned date: expired trust anchors.
    expect(ctx.findings.filter((f) => f.pname === 'expired-certificate-used-for-trust').map((f) => f.identifiers[0]!.cwe)).toEqual(['CWE-324', 'CWE-324', 'CWE-324']);
    expect(ctx.cryptoAssets.find((a) => a.name === 'RSA-2048')!.details).toMatchObject({ quantumClass: 'quantum-vulnerable', firmwareSigning: true });
  });

  it('finds the same through scan() and the UEFI handlers (certificates extracted as DER files)', async () => {
    const work = await mkdtemp(join(tmpdir(), 'firmscope-crypto-scan-'));
    try {
      const result = await scan(corpus('OVMF_VARS.secboot.fd'), { workDir: work, analyzers: [createCryptoAnalyzer({ now: () => NOW })] });
      check(result.cryptoAssets);
      expect(result.findings.filter((f) => f.pname === 'expired-certificate-used-for-trust')).toHaveLength(3);
      expect(result.cryptoAssets.find((a) => a.name === 'Microsoft Corporation KEK CA 2011')!.paths[0]).toMatch(/KEK_extract\/cert-1\.der$/);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('trust stores', () => {
  it('reports an expired certificate in a CA bundle, not an expired leaf elsewhere', async () => {
    const { dir: root, cleanup: done } = await tempDir();
    try {
      const { mkdir } = await import('node:fs/promises');
      await mkdir(join(root, 'etc/ssl/certs'), { recursive: true });
      await writeFile(join(root, 'etc/ssl/certs/ca-certificates.crt'), await pem('ec-leaf'));
      await writeFile(join(root, 'leaf.pem'), await pem('ec-leaf'));
      const later = new Date(Date.now() + 400 * 86_400_000);
      const inStore = await analyze(root, ['etc/ssl/certs/ca-certificates.crt'], { now: later });
      expect(inStore.findings.map((f) => f.pname)).toEqual(['expired-certificate-used-for-trust']);
      const elsewhere = await analyze(root, ['leaf.pem'], { now: later });
      expect(elsewhere.findings).toEqual([]);
    } finally {
      await done();
    }
  });
});
