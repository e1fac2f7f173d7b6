// Which crypto assets become knownVulnerability findings. A broken algorithm (DES, 3DES, RC4) found only in
// code (constant tables, library symbols, cipher-suite names compiled into a binary) is a crypto asset; it is a
// finding only where a configuration enables it or a key uses it. One finding per fingerprint: the algorithm's
// assets (DES, DES-CBC) are taken together per file, and a key pair's private and public halves are one weak key.
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cryptoFindings } from '../../../src/engine/crypto/findings.js';
import { assess } from '../../../src/engine/crypto/pqc.js';
import type { CryptoAsset } from '../../../src/engine/types.js';
import { NOW, analyze, pseudoRandom, tempDir } from './support.js';

const strings = (...parts: string[]) => Buffer.concat(parts.flatMap((p, i) => [pseudoRandom(64, i + 1), Buffer.from(`\0${p}\0`)]));
const LIBCRYPTO = strings('OpenSSL 1.0.2k  26 Jan 2017', 'DES_set_key_checked', 'EVP_des_ede3_cbc', 'RC4_set_key', 'TLS_RSA_WITH_RC4_128_SHA', 'EVP_aes_256_gcm');

async function analyzeFiles(files: Record<string, string | Buffer>) {
  const { dir, cleanup } = await tempDir();
  try {
    for (const [path, content] of Object.entries(files)) {
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, path), content);
    }
    return await analyze(dir, Object.keys(files));
  } finally {
    await cleanup();
  }
}

const broken = (findings: Array<{ pname: string; occurrences: Array<{ path: string }> }>) =>
  findings.filter((f) => f.pname.startsWith('broken-algorithm-')).map((f) => [f.pname, [...new Set(f.occurrences.map((o) => o.path))]]).sort();

describe('broken-algorithm findings', () => {
  it('a library that merely carries DES, 3DES and RC4 gives crypto assets and no finding', async () => {
    const ctx = await analyzeFiles({ 'usr/lib/libcrypto.so.1.0.0': LIBCRYPTO });
    const algorithms = ctx.cryptoAssets.filter((a) => a.assetType === 'algorithm').map((a) => a.details.algorithm);
    expect(algorithms).toEqual(expect.arrayContaining(['DES', '3DES', 'RC4']));
    expect(ctx.findings).toEqual([]);
  });

  it('a TLS cipher list that enables them is a finding on the configuration file, one per algorithm', async () => {
    const ctx = await analyzeFiles({
      'usr/lib/libcrypto.so.1.0.0': LIBCRYPTO,
      // '-RC4-MD5' removes a suite (OpenSSL cipher-string syntax): it enables nothing.
      'etc/nginx/nginx.conf': 'ssl_ciphers RC4-SHA:DES-CBC3-SHA:DES-CBC-SHA:ECDHE-RSA-AES128-GCM-SHA256:-RC4-MD5;\n',
    });
    expect(broken(ctx.findings)).toEqual([
      ['broken-algorithm-3des', ['etc/nginx/nginx.conf']],
      ['broken-algorithm-des', ['etc/nginx/nginx.conf']],
      ['broken-algorithm-rc4', ['etc/nginx/nginx.conf']],
    ]);
    const rc4 = ctx.findings.find((f) => f.pname === 'broken-algorithm-rc4')!;
    expect(rc4).toMatchObject({ findingType: 'knownVulnerability', severity: 'medium', identifiers: [{ cwe: 'CWE-327', rule: 'broken-algorithm-rc4' }], name: 'Broken algorithm RC4 enabled in nginx.conf' });
    expect(rc4.description).toContain('enabled by the configuration in etc/nginx/nginx.conf');
    // Why and what instead come from the PQC table, as in the PQC report.
    expect(rc4.description!.startsWith(assess('RC4')!.reason)).toBe(true);
    expect(rc4.recommendedAction).toContain('AES-256-GCM');
  });

  it("an SSH server configuration: '+3des-cbc' enables Triple DES, '-3des-cbc' removes it", async () => {
    const enabled = await analyzeFiles({ 'etc/ssh/sshd_config': 'Ciphers +3des-cbc\n' });
    expect(broken(enabled.findings)).toEqual([['broken-algorithm-3des', ['etc/ssh/sshd_config']]]);
    const removed = await analyzeFiles({ 'etc/ssh/sshd_config': 'Ciphers -3des-cbc\n' });
    expect(removed.findings).toEqual([]);
  });

  it('one finding per algorithm and file, however many assets (DES, DES-CBC) the algorithm has', () => {
    const asset = (name: string, mode: string | undefined, method: string, match: string): CryptoAsset => ({
      ref: `crypto:algorithm:${name}`, assetType: 'algorithm', name, details: { algorithm: 'DES', mode, methods: [method] },
      paths: ['etc/racoon.conf'], evidence: [{ path: 'etc/racoon.conf', method, match }],
    });
    const findings = cryptoFindings([asset('DES', undefined, 'config', 'IKE encryption_algorithm des'), asset('DES-CBC', 'CBC', 'config', 'IKE esp=des')], NOW);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.occurrences.map((o) => o.evidence)).toEqual(['config: IKE encryption_algorithm des', 'config: IKE esp=des']);
    // Code-only evidence beside it changes nothing.
    expect(cryptoFindings([asset('DES', undefined, 'constant-table', 'S-box S1'), asset('DES-CBC', 'CBC', 'library-symbol', 'EVP_des_cbc')], NOW)).toEqual([]);
  });
});

describe('weak keys', () => {
  it('a private key and its public key are one weak key: one finding with the evidence of both files', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const ctx = await analyzeFiles({
      'etc/ssl/private/server.key': privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      'etc/ssl/server.pub': publicKey.export({ type: 'spki', format: 'pem' }) as string,
    });
    expect(ctx.cryptoAssets.filter((a) => a.assetType.endsWith('-key')).map((a) => a.assetType).sort()).toEqual(['private-key', 'public-key']);
    const weak = ctx.findings.filter((f) => f.pname === 'weak-key-size');
    expect(weak).toHaveLength(1);
    expect(weak[0]!.occurrences.map((o) => o.path).sort()).toEqual(['etc/ssl/private/server.key', 'etc/ssl/server.pub']);
    expect(new Set(ctx.findings.map((f) => f.fingerprint)).size).toBe(ctx.findings.length);
  });
});

describe('published test keys', () => {
  // The public-key id of the 512-bit RSA key of Linux 6.1's crypto/testmgr.h (src/engine/crypto/published-keys.ts)
  const TESTMGR_512 = '6ec627494102f16d422fc273a5db76f56ba21e0594c488d07a80f63a96b0ba32';
  const key = (keyId: string): CryptoAsset => ({
    ref: `key-${keyId.slice(0, 8)}`,
    assetType: 'private-key',
    name: 'RSA-512 private key (DER)',
    details: { keyType: 'RSA', bits: 512, keyId, format: 'DER', encrypted: false, embeddedIn: 'ELF executable' },
    paths: ['boot/vmlinux'],
    evidence: [{ path: 'boot/vmlinux', method: 'DER PKCS#1', offset: 4096 }],
  });

  it("reports a key of the Linux kernel's crypto self-tests as the published key it is, at low severity, and not as weak", () => {
    const findings = cryptoFindings([key(TESTMGR_512)], NOW);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ pname: 'private-key-in-image', severity: 'low' });
    expect(findings[0]!.name).toBe("Published test private key in the image: RSA-512 private key (DER), from the Linux kernel's crypto/testmgr.h (rsa_tv_template and the PKCS#1 padding tests)");
    expect(findings[0]!.description).toContain('no secret of this device');
  });

  it('reports any other key compiled into a program as a private key, and a weak one as weak', () => {
    const findings = cryptoFindings([key('0'.repeat(64))], NOW);
    expect(findings.map((f) => [f.pname, f.severity])).toEqual([['private-key-in-image', 'medium'], ['weak-key-size', 'high']]);
  });
});
