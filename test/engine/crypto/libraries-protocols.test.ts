// Libraries by symbols and strings, protocols by their strings, and protocol configuration files; corpus
// binaries end to end (expectations checked with `strings`: ncat embeds "OpenSSL 1.0.2c 12 Jun 2015" and
// OpenSSL cipher names; OVMF's TlsDxe carries OpenSSL's IANA TLS suite names; the OpenWrt root filesystem has
// 12 usign keys in /etc/opkg/keys and `option check_signature` in /etc/opkg.conf).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bufferSource } from '../../../src/engine/binaries/byte-source.js';
import { createCryptoAnalyzer } from '../../../src/engine/crypto/analyzer.js';
import { elfCryptoImports } from '../../../src/engine/crypto/elf-imports.js';
import { ipsecAlgorithms, parseConfig } from '../../../src/engine/crypto/config-files.js';
import { suiteAlgorithms } from '../../../src/engine/crypto/protocols.js';
import { scan } from '../../../src/engine/scan.js';
import { needSystemFile } from '../../support/requirements.js';
import { corpus, haveShared } from '../../support/shared.js';
import { NOW, analyze, detectBuffer, pseudoRandom, tempDir } from './support.js';

const strings = (...parts: string[]) => Buffer.concat(parts.flatMap((p, i) => [pseudoRandom(64, i + 1), Buffer.from(`\0${p}\0`)]));

describe('library detection', () => {
  it('names the library, its version and the algorithms of the functions present', async () => {
    const found = await detectBuffer(strings('OpenSSL 1.1.1k  25 Mar 2021', 'EVP_aes_256_gcm', 'RC4_set_key', 'ECDSA_sign', 'EVP_sha1'));
    expect(found.libraries).toEqual([expect.objectContaining({ name: 'OpenSSL', version: '1.1.1k' })]);
    const algorithms = found.algorithms.filter((a) => a.method === 'library-symbol').map((a) => [a.algorithm, a.parameter, a.mode]);
    expect(algorithms).toEqual(expect.arrayContaining([['AES', '256', 'GCM'], ['RC4', undefined, undefined], ['ECDSA', undefined, undefined], ['SHA-1', undefined, undefined]]));
  });

  it.each([
    ['OpenSSL', strings('OpenSSL 0.9.8zh 3 Dec 2015', 'DES_ecb_encrypt'), '0.9.8zh', 'DES'],
    ['Mbed TLS', strings('mbed TLS 2.16.6', 'mbedtls_des_setkey_enc'), '2.16.6', 'DES'],
    ['wolfSSL', strings('wolfSSL_Init', 'wc_InitSha256', 'wc_MlKemKey_Init'), undefined, 'ML-KEM'],
    ['libsodium', strings('sodium_init', 'crypto_sign_ed25519_detached'), undefined, 'Ed25519'],
    ['Nettle', strings('nettle_sha256_init', 'nettle_arcfour_set_key'), undefined, 'RC4'],
    ['BoringSSL', strings('BORINGSSL_self_test', 'EVP_aead_chacha20_poly1305'), undefined, 'ChaCha20-Poly1305'],
    ['EDK II BaseCryptLib', strings('/build/CryptoPkg/Library/BaseCryptLib/Pk/CryptPkcs7VerifyCommon.c'), undefined, 'RSA'],
  ])('%s', async (name, data, version, algorithm) => {
    const found = await detectBuffer(data);
    expect(found.libraries.map((l) => [l.name, l.version])).toContainEqual([name, version]);
    expect(found.algorithms.map((a) => a.algorithm)).toContain(algorithm);
  });

  it('needs a library marker: imported function names alone name no library', async () => {
    const found = await detectBuffer(strings('EVP_sha256', 'mbedtls_sha256_starts'));
    expect(found.libraries).toEqual([]);
  });
});

describe('ELF imports', () => {
  it.skipIf(!needSystemFile(['/usr/bin/openssl'], 'openssl', 'the ELF import test on the openssl tool'))('reads the crypto functions a dynamically linked program imports (the openssl tool)', async () => {
    const hits = await elfCryptoImports(bufferSource(await readFile('/usr/bin/openssl')));
    expect(hits.length).toBeGreaterThan(3);
    expect(hits.every((h) => h.method === 'elf-import' && h.library === 'OpenSSL')).toBe(true);
    expect(hits.map((h) => h.what)).toEqual(expect.arrayContaining(['imports EVP_sha256 (OpenSSL)', 'imports EVP_aes_256_cbc (OpenSSL)']));
  });

  it('returns nothing for non-ELF and truncated ELF files', async () => {
    expect(await elfCryptoImports(bufferSource(pseudoRandom(4096)))).toEqual([]);
    const elf = existsSync('/usr/bin/openssl') ? await readFile('/usr/bin/openssl') : Buffer.concat([Buffer.from('\x7fELF', 'latin1'), pseudoRandom(200)]);
    expect(await elfCryptoImports(bufferSource(elf.subarray(0, 100)))).toEqual([]);
  });
});

describe('protocol strings', () => {
  it('decomposes cipher suites into algorithms', () => {
    expect(suiteAlgorithms('TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256')).toEqual([
      { algorithm: 'ECDH', parameter: undefined, mode: undefined }, { algorithm: 'RSA', parameter: undefined, mode: undefined },
      { algorithm: 'AES', parameter: '128', mode: 'GCM' }, { algorithm: 'SHA-256', parameter: undefined, mode: undefined },
    ]);
    expect(suiteAlgorithms('DES-CBC3-SHA').map((a) => a.algorithm)).toEqual(['3DES', 'SHA-1']);
    expect(suiteAlgorithms('TLS_RSA_WITH_RC4_128_MD5').map((a) => a.algorithm)).toEqual(['RSA', 'RC4', 'MD5']);
    expect(suiteAlgorithms('TLS_AES_256_GCM_SHA384').map((a) => a.algorithm)).toEqual(['AES', 'SHA-384', 'ECDH']);
  });

  it('finds TLS versions and suites, SSH algorithms behind a banner, WireGuard and FIT signatures', async () => {
    const found = await detectBuffer(strings('TLSv1.2', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256', 'ECDHE-RSA-AES256-GCM-SHA384', 'SSH-2.0-dropbear', 'diffie-hellman-group1-sha1', 'Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s', 'sha256,rsa2048'));
    const byName = Object.fromEntries(found.protocols.map((p) => [p.protocol, p]));
    expect(byName.TLS).toMatchObject({ versions: ['TLS 1.2'], cipherSuites: ['ECDHE-RSA-AES256-GCM-SHA384', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'] });
    // Each algorithm names the protocol string that implies it (evidence shows it, not the protocol's first name).
    expect(byName.SSH!.algorithms).toContainEqual({ algorithm: 'DH', parameter: '1024', mode: undefined, via: 'diffie-hellman-group1-sha1' });
    expect(byName.TLS!.algorithms).toContainEqual({ algorithm: 'AES', parameter: '256', mode: 'GCM', via: 'ECDHE-RSA-AES256-GCM-SHA384' });
    expect(byName.WireGuard!.algorithms.map((a) => a.algorithm)).toEqual(['X25519', 'ChaCha20-Poly1305', 'BLAKE2s']);
    expect(byName['signed-update']).toMatchObject({ names: ['U-Boot FIT sha256,rsa2048'] });
    // SSH algorithm names without a banner (a key file, a man page) are no SSH protocol.
    expect((await detectBuffer(strings('diffie-hellman-group1-sha1'))).protocols).toEqual([]);
  });
});

describe('configuration files', () => {
  it('sshd_config: ciphers, key exchange, host keys, protocol 1', () => {
    const [ssh] = parseConfig('/etc/ssh/sshd_config', 'Protocol 2,1\nCiphers aes256-ctr,3des-cbc\n# Ciphers arcfour\nKexAlgorithms curve25519-sha256\nHostKey /etc/ssh/ssh_host_ecdsa_key\n').protocols;
    expect(ssh).toMatchObject({ protocol: 'SSH', method: 'config', versions: ['SSH-1'], names: ['aes256-ctr', '3des-cbc', 'curve25519-sha256'] });
    expect(ssh!.algorithms.map((a) => a.algorithm)).toEqual(['AES', '3DES', 'X25519', 'SHA-256', 'ECDSA']);
  });

  it('IKE proposals (strongSwan, racoon)', () => {
    expect(ipsecAlgorithms('aes256gcm16-sha384-ecp384,3des-md5-modp1024')).toEqual([
      { algorithm: 'AES', parameter: '256', mode: 'GCM' }, { algorithm: 'SHA-384' }, { algorithm: 'ECDH', parameter: 'P-384' },
      { algorithm: '3DES', mode: 'CBC' }, { algorithm: 'MD5' }, { algorithm: 'DH', parameter: '1024' },
    ]);
    const [ike] = parseConfig('/etc/racoon.conf', 'remote anonymous {\n proposal {\n  encryption_algorithm 3des;\n  hash_algorithm sha1;\n  dh_group 2;\n }\n}\n').protocols;
    expect(ike!.algorithms).toEqual([
      { algorithm: '3DES', mode: 'CBC', via: 'encryption_algorithm 3des' }, { algorithm: 'SHA-1', via: 'hash_algorithm sha1' }, { algorithm: 'DH', parameter: '1024', mode: undefined, via: 'dh_group 2' },
    ]);
  });

  it('WireGuard private keys are key material; TLS server settings; opkg signature checking', () => {
    const wg = parseConfig('/etc/wireguard/wg0.conf', '[Interface]\nPrivateKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=\nListenPort = 51820\n');
    expect(wg.materials).toEqual([expect.objectContaining({ kind: 'private-key', format: 'WireGuard', key: expect.objectContaining({ keyType: 'X25519' }) })]);
    const [tls] = parseConfig('/etc/nginx/nginx.conf', 'ssl_protocols TLSv1 TLSv1.2;\nssl_ciphers RC4-SHA:ECDHE-RSA-AES128-GCM-SHA256:!aNULL;\n').protocols;
    expect(tls).toMatchObject({ versions: ['TLS 1.0', 'TLS 1.2'], cipherSuites: ['RC4-SHA', 'ECDHE-RSA-AES128-GCM-SHA256'] });
    expect(parseConfig('/etc/opkg.conf', 'dest root /\noption check_signature\n').protocols[0]).toMatchObject({ protocol: 'signed-update', settings: { check_signature: 'enabled' } });
    expect(parseConfig('/etc/opkg.conf', 'dest root /\n').protocols).toEqual([]);
  });

  it('the analyzer parses selected configs and reports what they enable', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await mkdir(join(dir, 'etc/ssh'), { recursive: true });
      await writeFile(join(dir, 'etc/ssh/sshd_config'), 'Ciphers 3des-cbc\n');
      await mkdir(join(dir, 'etc/wireguard'), { recursive: true });
      await writeFile(join(dir, 'etc/wireguard/wg0.conf'), '[Interface]\nPrivateKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=\n');
      const ctx = await analyze(dir, ['etc/ssh/sshd_config', 'etc/wireguard/wg0.conf']);
      expect(ctx.cryptoAssets.filter((a) => a.assetType === 'protocol').map((a) => a.name).sort()).toEqual(['SSH', 'WireGuard']);
      expect(ctx.findings.map((f) => [f.pname, f.severity]).sort()).toEqual([['broken-algorithm-3des', 'medium'], ['private-key-in-image', 'high']]);
    } finally {
      await cleanup();
    }
  });
});

describe.skipIf(!haveShared('corpus', 'ncat-linux-x86_64'))('corpus binaries', () => {
  it('ncat: statically linked OpenSSL 1.0.2c with its tables and TLS suites', async () => {
    const ctx = await analyze(corpus(''), ['ncat-linux-x86_64']);
    expect(ctx.cryptoAssets.find((a) => a.assetType === 'library')).toMatchObject({ name: 'OpenSSL 1.0.2c' });
    const names = ctx.cryptoAssets.filter((a) => a.assetType === 'algorithm').map((a) => a.name);
    expect(names).toEqual(expect.arrayContaining(['AES', 'SHA-256', 'SHA-512', 'ECC-P-256', 'ECC-P-384', 'Camellia', 'Blowfish', 'DES']));
    expect(ctx.cryptoAssets.find((a) => a.assetType === 'protocol' && a.name === 'TLS')).toBeDefined();
  }, 30_000);

  it.skipIf(!haveShared('corpus', 'OVMF_CODE.secboot.fd'))('OVMF code volume through scan(): EDK II BaseCryptLib with OpenSSL, TLS in TlsDxe', async () => {
    const work = await mkdtemp(join(tmpdir(), 'firmscope-crypto-scan-'));
    try {
      const result = await scan(corpus('OVMF_CODE.secboot.fd'), { workDir: work, analyzers: [createCryptoAnalyzer({ now: () => NOW })] });
      const libraries = result.cryptoAssets.filter((a) => a.assetType === 'library');
      expect(libraries.map((l) => l.name).sort()).toEqual(['EDK II BaseCryptLib', 'OpenSSL']);
      expect(libraries.find((l) => l.name === 'OpenSSL')!.paths.some((p) => p.endsWith('SecurityStubDxe.efi'))).toBe(true);
      const tls = result.cryptoAssets.find((a) => a.assetType === 'protocol' && a.name === 'TLS')!;
      expect(tls.paths.every((p) => p.endsWith('TlsDxe.efi'))).toBe(true);
      expect((tls.details.cipherSuites as string[]).length).toBeGreaterThan(100);
      const algorithms = result.cryptoAssets.filter((a) => a.assetType === 'algorithm').map((a) => a.name);
      expect(algorithms).toEqual(expect.arrayContaining(['AES', 'SHA-256', 'SHA-512', 'RSA', 'AES-256-GCM']));
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }, 120_000);

  it.skipIf(!haveShared('corpus', 'openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin'))('OpenWrt image through scan(): the 12 usign keys of /etc/opkg/keys, signed packages, dropbear SSH', async () => {
    const work = await mkdtemp(join(tmpdir(), 'firmscope-crypto-scan-'));
    try {
      const result = await scan(corpus('openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin'), { workDir: work, analyzers: [createCryptoAnalyzer({ now: () => NOW })] });
      const keys = result.cryptoAssets.filter((a) => a.assetType === 'public-key' && a.details.format === 'usign');
      expect(keys).toHaveLength(12);
      expect(keys.map((k) => k.details.fingerprint).sort()).toEqual(keys.map((k) => k.paths[0]!.split('/').pop()).sort());
      expect(keys.find((k) => k.details.fingerprint === '0b26f36ae0f4106d')!.details.comment).toBe('Public usign key of Stijn Tintel');
      expect(keys.every((k) => k.paths[0]!.includes('/etc/opkg/keys/'))).toBe(true);
      expect(result.cryptoAssets.find((a) => a.assetType === 'protocol' && a.name === 'signed-update')).toBeDefined();
      expect(result.cryptoAssets.find((a) => a.assetType === 'protocol' && a.name === 'SSH')!.paths.some((p) => p.endsWith('/usr/sbin/dropbear'))).toBe(true);
      expect(result.findings.filter((f) => f.pname === 'private-key-in-image')).toEqual([]);
      // dropbear's SSH key exchanges: each DH size is shown with the group and the name that use it (group 1 is
      // 1024-bit, from RFC 2409; group 14 is 2048-bit, from RFC 3526).
      const evidence = (name: string) => result.cryptoAssets.find((a) => a.name === name)!.evidence.map((e) => e.match).sort();
      expect(evidence('DH-1024')).toEqual(['DH RFC 2409 MODP group 2 (1024-bit) prime', 'SSH diffie-hellman-group1-sha1']);
      expect(evidence('DH-2048')).toEqual(['DH RFC 3526 MODP group 14 (2048-bit) prime', 'SSH diffie-hellman-group14-sha1', 'SSH diffie-hellman-group14-sha256']);
      expect(evidence('X25519')).toEqual(['SSH curve25519-sha256']);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }, 120_000);
});

