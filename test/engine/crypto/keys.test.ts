// Keys in every encoding, generated here with node:crypto, openssl and ssh-keygen; decoys that are not keys;
// truncated and corrupted variants; and the FACT corpus key files (verified with openssl: ssl.key is an
// unencrypted PKCS#8 RSA-1024 key; pkcs12.p12 opens with the empty password and holds an RSA-2048 key and a
// self-signed certificate, bags encrypted with pbeWithSHA1And40BitRC2-CBC and 3DES).
import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Material } from '../../../src/engine/crypto/material.js';
import { corpus, haveShared } from '../../support/shared.js';
import { analyze, detectBuffer, pseudoRandom, tempDir } from './support.js';

const materials = async (data: Buffer): Promise<Material[]> => (await detectBuffer(data)).materials;
const one = async (data: Buffer): Promise<Material> => {
  const found = await materials(data);
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe('private and public keys', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' });
  const ed = generateKeyPairSync('ed25519');
  const dsa = generateKeyPairSync('dsa', { modulusLength: 2048, divisorLength: 256 });

  it.each([
    ['PKCS#1 PEM', rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }), 'RSA', 2048, 'PKCS#1'],
    ['PKCS#8 PEM', rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }), 'RSA', 2048, 'PKCS#8'],
    ['SEC1 PEM', ec.privateKey.export({ type: 'sec1', format: 'pem' }), 'EC', 384, 'SEC1'],
    ['Ed25519 PKCS#8 PEM', ed.privateKey.export({ type: 'pkcs8', format: 'pem' }), 'Ed25519', 256, 'PKCS#8'],
    ['DSA PKCS#8 PEM', dsa.privateKey.export({ type: 'pkcs8', format: 'pem' }), 'DSA', 2048, 'PKCS#8'],
  ])('finds a %s private key', async (_, pem, keyType, bits, encoding) => {
    const item = await one(Buffer.concat([pseudoRandom(500), Buffer.from(pem as string), pseudoRandom(300)]));
    expect(item).toMatchObject({ kind: 'private-key', format: 'PEM', encoding, encrypted: false, offset: 500, key: { keyType, bits } });
    expect(item.keyId).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['PKCS#1', rsa.privateKey.export({ type: 'pkcs1', format: 'der' }), 'RSA'],
    ['PKCS#8', rsa.privateKey.export({ type: 'pkcs8', format: 'der' }), 'RSA'],
    ['SEC1', ec.privateKey.export({ type: 'sec1', format: 'der' }), 'EC'],
    ['PKCS#8', ed.privateKey.export({ type: 'pkcs8', format: 'der' }), 'Ed25519'],
  ])('carves a DER %s %s private key out of a binary', async (encoding, der, keyType) => {
    const item = await one(Buffer.concat([pseudoRandom(1001, 4), der as Buffer, pseudoRandom(999, 5)]));
    expect(item).toMatchObject({ kind: 'private-key', format: 'DER', encoding, offset: 1001, length: (der as Buffer).length, key: { keyType } });
  });

  it('carves DER and PEM public keys, and identifies a key by its public half', async () => {
    const spki = rsa.publicKey.export({ type: 'spki', format: 'der' });
    const item = await one(Buffer.concat([pseudoRandom(64), spki, pseudoRandom(64)]));
    expect(item).toMatchObject({ kind: 'public-key', encoding: 'SPKI', key: { keyType: 'RSA', bits: 2048 } });
    const pkcs1 = await one(Buffer.concat([pseudoRandom(33), rsa.publicKey.export({ type: 'pkcs1', format: 'der' }), pseudoRandom(33)]));
    expect(pkcs1).toMatchObject({ kind: 'public-key', format: 'DER', encoding: 'PKCS#1', offset: 33, key: { keyType: 'RSA', bits: 2048 } });
    const pem = await one(Buffer.from(ec.publicKey.export({ type: 'spki', format: 'pem' })));
    expect(pem).toMatchObject({ kind: 'public-key', format: 'PEM', key: { keyType: 'EC', curve: 'P-384' } });
    const priv = await one(rsa.privateKey.export({ type: 'pkcs8', format: 'der' }));
    expect(priv.keyId).toBe(item.keyId);
    expect(item.keyId).toBe(createHash('sha256').update(spki).digest('hex'));
  });

  it('reports encrypted keys as encrypted, and names the password when a common one opens them', async () => {
    const strong = await one(Buffer.from(rsa.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'Xq9-unguessable-Zr4' })));
    expect(strong).toMatchObject({ kind: 'private-key', encrypted: true, encryption: 'PBES2 aes-256-cbc' });
    expect(strong.key).toBeUndefined();
    expect(strong.weakPassword).toBeUndefined();
    const weak = await one(Buffer.from(ec.privateKey.export({ type: 'sec1', format: 'pem', cipher: 'aes-128-cbc', passphrase: 'password' })));
    expect(weak).toMatchObject({ encrypted: true, weakPassword: 'password', encryption: 'AES-128-CBC', key: { keyType: 'EC', curve: 'P-384' } });
  });

  it('does not take placeholders, empty files, truncated or corrupted keys for keys', async () => {
    const pem = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    expect(await materials(Buffer.from('-----BEGIN RSA PRIVATE KEY-----\nPLACEHOLDER\n-----END RSA PRIVATE KEY-----\n'))).toEqual([]);
    expect(await materials(Buffer.from('PLACEHOLDER\n'))).toEqual([]);
    expect(await materials(Buffer.alloc(0))).toEqual([]);
    expect(await materials(Buffer.from(pem.slice(0, pem.length / 2)))).toEqual([]);
    const lines = pem.split('\n');
    lines.splice(3, 4);
    expect(await materials(Buffer.from(lines.join('\n')))).toEqual([]);
    const der = Buffer.from(rsa.privateKey.export({ type: 'pkcs1', format: 'der' }));
    expect(await materials(der.subarray(0, der.length - 40))).toEqual([]);
    // The anchor (version, modulus tag) stays; the modulus length no longer fits the structure.
    der[10] = 0x05;
    expect((await materials(der)).filter((m) => m.kind === 'private-key')).toEqual([]);
  });
});

describe('SSH, usign and Dropbear keys', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    for (const [type, bits] of [['rsa', '3072'], ['ed25519', ''], ['ecdsa', '256']]) {
      execFileSync('ssh-keygen', ['-q', '-t', type!, ...(bits ? ['-b', bits] : []), '-N', '', '-C', `${type}@firmscope`, '-f', join(dir, `id_${type}`)]);
    }
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'secret-pass', '-f', join(dir, 'id_locked')]);
  });
  afterAll(() => cleanup());

  it('reads OpenSSH private keys (type, size, comment, encryption) and public key lines', async () => {
    expect(await one(await readFile(join(dir, 'id_rsa')))).toMatchObject({ kind: 'private-key', format: 'OpenSSH', encrypted: false, key: { keyType: 'RSA', bits: 3072 }, comment: 'rsa@firmscope' });
    expect(await one(await readFile(join(dir, 'id_ecdsa')))).toMatchObject({ key: { keyType: 'EC', curve: 'P-256' } });
    expect(await one(await readFile(join(dir, 'id_locked')))).toMatchObject({ kind: 'private-key', encrypted: true, encryption: 'aes256-ctr', key: { keyType: 'Ed25519' } });
    const authorized = Buffer.concat([await readFile(join(dir, 'id_rsa.pub')), Buffer.from('# comment\n'), await readFile(join(dir, 'id_ed25519.pub'))]);
    const found = await materials(authorized);
    expect(found.map((m) => [m.kind, m.format, m.key?.keyType, m.comment])).toEqual([
      ['public-key', 'SSH public key', 'RSA', 'rsa@firmscope'],
      ['public-key', 'SSH public key', 'Ed25519', 'ed25519@firmscope'],
    ]);
    const priv = await one(await readFile(join(dir, 'id_ed25519')));
    expect(found[1]!.keyId).toBe(priv.keyId);
  });

  it('reads OpenWrt usign public and secret keys', async () => {
    const pk = Buffer.concat([Buffer.from('Ed'), Buffer.from('0102030405060708', 'hex'), pseudoRandom(32, 77)]);
    const item = await one(Buffer.from(`untrusted comment: public key 0102030405060708\n${pk.toString('base64')}\n`));
    expect(item).toMatchObject({ kind: 'public-key', format: 'usign', key: { keyType: 'Ed25519' }, comment: 'public key 0102030405060708', context: { fingerprint: '0102030405060708' } });
    const sk = Buffer.concat([Buffer.from('EdBK'), Buffer.alloc(4), pseudoRandom(16, 1), pseudoRandom(8, 2), Buffer.from('0102030405060708', 'hex'), pseudoRandom(64, 3)]);
    expect(await one(Buffer.from(`untrusted comment: secret key\n${sk.toString('base64')}\n`))).toMatchObject({ kind: 'private-key', format: 'usign', encrypted: false });
    expect(await materials(Buffer.from('untrusted comment: nothing\nAAAA\n'))).toEqual([]);
  });

  it('reads a Dropbear host key file', async () => {
    const key = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'jwk' });
    const str = (b: Buffer) => Buffer.concat([Buffer.alloc(4, 0).fill(0), b]).fill(0, 0, 4).map((v, i) => (i < 4 ? (b.length >>> (8 * (3 - i))) & 0xff : v));
    const mpint = (b64: string) => {
      const raw = Buffer.from(b64, 'base64url');
      return str(raw[0]! & 0x80 ? Buffer.concat([Buffer.alloc(1), raw]) : raw);
    };
    const file = Buffer.concat([str(Buffer.from('ssh-rsa')), mpint(key.e!), mpint(key.n!), mpint(key.d!), mpint(key.p!), mpint(key.q!)]);
    expect(await one(file)).toMatchObject({ kind: 'private-key', format: 'dropbear', key: { keyType: 'RSA', bits: 1024 } });
  });
});

describe('PKCS#12', () => {
  it('opens generated containers with empty and common passwords (PBES2/AES and legacy RC2)', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-subj', '/CN=p12 test', '-days', '30'], { stdio: 'ignore' });
      execFileSync('openssl', ['pkcs12', '-export', '-in', join(dir, 'c.pem'), '-inkey', join(dir, 'k.pem'), '-passout', 'pass:', '-out', join(dir, 'aes.p12')]);
      execFileSync('openssl', ['pkcs12', '-export', '-legacy', '-in', join(dir, 'c.pem'), '-inkey', join(dir, 'k.pem'), '-passout', 'pass:password', '-out', join(dir, 'rc2.p12')]);
      execFileSync('openssl', ['pkcs12', '-export', '-in', join(dir, 'c.pem'), '-inkey', join(dir, 'k.pem'), '-passout', 'pass:Not-In-Any-List-91', '-out', join(dir, 'strong.p12')]);
      for (const [file, password] of [['aes.p12', ''], ['rc2.p12', 'password']] as const) {
        const found = await materials(await readFile(join(dir, file)));
        expect(found.find((m) => m.kind === 'certificate')?.certificate?.commonName, file).toBe('p12 test');
        expect(found.find((m) => m.kind === 'private-key'), file).toMatchObject({ format: 'PKCS#12', weakPassword: password, key: { keyType: 'EC', curve: 'P-256' } });
      }
      const locked = await materials(await readFile(join(dir, 'strong.p12')));
      expect(locked).toEqual([expect.objectContaining({ kind: 'private-key', format: 'PKCS#12', encrypted: true, encryption: 'PBES2' })]);
      expect(locked[0]!.weakPassword).toBeUndefined();
      expect(locked[0]!.key).toBeUndefined();
    } finally {
      await cleanup();
    }
  });
});

describe.skipIf(!haveShared('corpus', 'ssl.key'))('corpus key files', () => {
  it('ssl.key: unencrypted PKCS#8 RSA-1024, a private key in the image and a weak key', async () => {
    const item = await one(await readFile(corpus('ssl.key')));
    expect(item).toMatchObject({ kind: 'private-key', format: 'PEM', encoding: 'PKCS#8', encrypted: false, key: { keyType: 'RSA', bits: 1024 } });
    const ctx = await analyze(corpus(''), ['ssl.key']);
    expect(ctx.findings.map((f) => [f.pname, f.identifiers[0]!.cwe, f.severity]).sort()).toEqual([
      ['private-key-in-image', 'CWE-321', 'high'],
      ['weak-key-size', 'CWE-326', 'medium'],
    ]);
  });

  it('pkcs12.p12: opens with the empty password despite RC2-40 bags; RSA-2048 key and its certificate', async () => {
    const found = await materials(await readFile(corpus('pkcs12.p12')));
    const cert = found.find((m) => m.kind === 'certificate')!.certificate!;
    expect(cert).toMatchObject({
      subject: 'C=DD, ST=ASD, L=asdsawe, O=sdfadf, OU=dsadf, CN=dsaf, emailAddress=fsdaf',
      serialNumber: 'EB850FAA95837DC2',
      notBefore: '2016-02-10T15:18:37.000Z',
      notAfter: '2017-02-09T15:18:37.000Z',
      signatureAlgorithm: 'sha256WithRSAEncryption',
      selfSigned: true,
      expired: true,
      key: { keyType: 'RSA', bits: 2048 },
    });
    const key = found.find((m) => m.kind === 'private-key')!;
    expect(key).toMatchObject({ weakPassword: '', key: { keyType: 'RSA', bits: 2048 } });
    expect(key.context?.bagEncryption).toContain('pbeWithSHAAnd40BitRC2-CBC');
  });
});
