// A scan result with crypto assets for the PQC and CBOM report tests: generated material (a Secure Boot-style
// EFI store is not needed here) plus, when ../shared is present, the corpus key files and OVMF variable store.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { AES_SBOX } from '../../src/engine/crypto/constants/aes.js';
import { MLKEM_ZETAS } from '../../src/engine/crypto/constants/mlkem.js';
import { SHA256_K } from '../../src/engine/crypto/constants/sha2.js';
import type { Component, ScanResult } from '../../src/engine/types.js';
import { corpus, haveShared } from '../support/shared.js';
import { NOW, analyze, pseudoRandom, tempDir } from '../engine/crypto/support.js';

const u32 = (v: number[]) => Buffer.from(new Uint32Array(v).buffer);
const u16 = (v: number[]) => Buffer.from(new Uint16Array(v).buffer);

/** Builds the generated scan in a temporary folder before the enclosing tests (removed after them); `.result` holds it. */
export function useGeneratedScan(): { result: ScanResult } {
  const scan = {} as { result: ScanResult };
  let cleanup: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const tmp = await tempDir();
    cleanup = tmp.cleanup;
    scan.result = await generatedScan(tmp.dir);
  });
  afterAll(() => cleanup());
  return scan;
}

export async function generatedScan(dir: string): Promise<ScanResult> {
  await mkdir(join(dir, 'rootfs/etc/ssh'), { recursive: true });
  await mkdir(join(dir, 'rootfs/usr/lib'), { recursive: true });
  await writeFile(join(dir, 'rootfs/usr/lib/libcrypto.so.1.1'), Buffer.concat([
    pseudoRandom(2000), Buffer.from('\0OpenSSL 1.1.1w  11 Sep 2023\0RC4_set_key\0EVP_aes_256_gcm\0'), Buffer.from(AES_SBOX), pseudoRandom(300, 2), u32(SHA256_K.slice(0, 16)), u16(MLKEM_ZETAS.slice(0, 16)), pseudoRandom(100, 3),
  ]));
  await writeFile(join(dir, 'rootfs/etc/ssh/sshd_config'), 'Ciphers aes128-ctr,3des-cbc\nKexAlgorithms diffie-hellman-group14-sha1,mlkem768x25519-sha256\n');
  await writeFile(join(dir, 'rootfs/etc/ssh/ssh_host_ecdsa_key'), generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'ca.key'), '-out', join(dir, 'rootfs/etc/ssl-ca.pem'), '-subj', '/CN=Firmscope Test Root', '-sha1', '-days', '3650', '-addext', 'basicConstraints=critical,CA:TRUE'], { stdio: 'ignore' });
  const paths = ['rootfs/usr/lib/libcrypto.so.1.1', 'rootfs/etc/ssh/sshd_config', 'rootfs/etc/ssh/ssh_host_ecdsa_key', 'rootfs/etc/ssl-ca.pem'];
  const components: Component[] = [{ ref: 'openssl@1.1.1w', name: 'openssl', version: '1.1.1w', type: 'library', confidence: 1, paths: [paths[0]!], evidence: [], foundBy: ['test'], cpe: 'cpe:2.3:a:openssl:openssl:1.1.1w:*:*:*:*:*:*:*', purl: 'pkg:generic/openssl@1.1.1w' }];
  const ctx = await analyze(dir, paths, { components });
  return result('rootfs.bin', ctx, paths, components);
}

export const haveCorpus = (): boolean => haveShared('corpus', 'OVMF_VARS.secboot.fd');

export async function corpusScan(): Promise<ScanResult> {
  const paths = ['OVMF_VARS.secboot.fd', 'ssl.key', 'pkcs12.p12'];
  const ctx = await analyze(corpus(''), paths);
  return result('corpus', ctx, paths, []);
}

function result(name: string, ctx: Awaited<ReturnType<typeof analyze>>, paths: string[], components: Component[]): ScanResult {
  return {
    engineVersion: '0.1.0-test',
    image: { fileName: name, size: 1, hashes: { sha256: 'a'.repeat(64), sha1: 'b'.repeat(40), md5: 'c'.repeat(32) }, type: 'data' },
    files: paths.map((path) => ({ path, fsPath: '/' + path, kind: 'file', size: 1, type: 'data', depth: 1, sha256: 'd'.repeat(64) })),
    unknownChunks: [],
    components,
    findings: ctx.findings,
    cryptoAssets: ctx.cryptoAssets,
    problems: ctx.problems,
    stats: { durationMs: 1, filesExtracted: paths.length, bytesExtracted: 1, formats: {} },
  };
}

export { NOW };
