// Constant tables: published values (typed here from the standards and reference code, independent of the
// generated signatures) compiled into synthetic binaries must be found; random data and CRC tables must not
// count as cryptography; a real OpenSSL libcrypto shows its tables.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { AES_INV_SBOX, AES_SBOX } from '../../../src/engine/crypto/constants/aes.js';
import { MODP_GROUPS } from '../../../src/engine/crypto/constants/dh.js';
import { SHA256_K, SHA512_K } from '../../../src/engine/crypto/constants/sha2.js';
import { constantSignatures } from '../../../src/engine/crypto/constants/index.js';
import { detectFile } from '../../../src/engine/crypto/detect-file.js';
import { needSystemFile } from '../../support/requirements.js';
import { NOW, analyze, detectBuffer, pseudoRandom, tempDir } from './support.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const u32 = (values: number[], endian: 'le' | 'be' = 'le'): Buffer => {
  const b = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => (endian === 'le' ? b.writeUInt32LE(v >>> 0, i * 4) : b.writeUInt32BE(v >>> 0, i * 4)));
  return b;
};
const u64 = (values: bigint[], endian: 'le' | 'be' = 'le'): Buffer => {
  const b = Buffer.alloc(values.length * 8);
  values.forEach((v, i) => (endian === 'le' ? b.writeBigUInt64LE(v, i * 8) : b.writeBigUInt64BE(v, i * 8)));
  return b;
};
const i16 = (values: number[]): Buffer => {
  const b = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => b.writeInt16LE(v, i * 2));
  return b;
};
const i32 = (values: number[]): Buffer => {
  const b = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => b.writeInt32LE(v, i * 4));
  return b;
};

/** [expected algorithm, table bytes as a compiler would lay them out] */
const PUBLISHED: Array<[string, Buffer]> = [
  ['AES', Buffer.from('637c777bf26b6fc53001672bfed7ab76ca82c97dfa5947f0add4a2af9ca472c0', 'hex')],
  ['AES', u32([0xc66363a5, 0xf87c7c84, 0xee777799, 0xf67b7b8d, 0xfff2f20d, 0xd66b6bbd, 0xde6f6fb1, 0x91c5c554], 'be')],
  ['DES', Buffer.from([14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7, 0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11, 9, 5, 3, 8])],
  ['Blowfish', u32([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0x082efa98, 0xec4e6c89], 'be')],
  ['Twofish', Buffer.from('a967b3e804fda3769a928078e4ddd1380dc6359818f7ec6c43753726fa139448', 'hex')],
  ['Camellia', u64([0xa09e667f3bcc908bn, 0xb67ae8584caa73b2n, 0xc6ef372fe94f82ben, 0x54ff53a5f1d36f1cn])],
  ['ChaCha20', Buffer.from('expand 32-byte k')],
  ['MD5', u32([0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501])],
  ['SHA-1', u32([0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0], 'be')],
  ['SHA-256', u32([0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5])],
  ['SHA-512', u64([0x428a2f98d728ae22n, 0x7137449123ef65cdn, 0xb5c0fbcfec4d3b2fn, 0xe9b5dba58189dbbcn], 'be')],
  ['SHA-384', u64([0xcbbb9d5dc1059ed8n, 0x629a292a367cd507n, 0x9159015a3070dd17n, 0x152fecd8f70e5939n, 0x67332667ffc00b31n, 0x8eb44a8768581511n, 0xdb0c2e0d64f98fa7n, 0x47b5481dbefa4fa4n])],
  ['SHA-3', u64([0x1n, 0x8082n, 0x800000000000808an, 0x8000000080008000n, 0x808bn, 0x80000001n])],
  ['RIPEMD-160', Buffer.from([5, 14, 7, 0, 9, 2, 11, 4, 13, 6, 15, 8, 1, 10, 3, 12])],
  ['P-256', Buffer.from('ffffffff00000001000000000000000000000000ffffffffffffffffffffffff', 'hex')],
  ['secp256k1', Buffer.from('79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex').reverse()],
  ['brainpoolP256r1', Buffer.from('a9fb57dba1eea9bc3e660a909d838d726e3bf623d52620282013481d1f6e5377', 'hex')],
  ['Curve25519', Buffer.from('ed' + 'ff'.repeat(30) + '7f', 'hex')],
  ['Ed25519', Buffer.from('52036cee2b6ffe738cc740797779e89800700a4d4141d8ab75eb4dca135978a3', 'hex')],
  ['ML-KEM', i16([-1044, -758, -359, -1517, 1493, 1422, 287, 202, -171, 622, 1577, 182])],
  ['ML-KEM', i16([1, 1729, 2580, 3289, 2642, 630, 1897, 848, 1062, 1919, 193, 797])],
  ['ML-DSA', i32([0, 25847, -2608894, -518909, 237124, -777960, -876248, 466468, 1826347])],
  ['ML-DSA', i32([4808194, 3765607, 3761513, 5178923, 5496691, 5234739, 5178987, 7778734])],
  ['SLH-DSA', Buffer.from('\0SLH-DSA-SHA2-128s\0')],
  ['LMS', Buffer.from('\0LMS_SHA256_M32_H10\0')],
  ['XMSS', Buffer.from('\0XMSS-SHA2_10_256\0')],
  ['RC4', Buffer.from('\0RC4_set_key\0')],
];

describe('constant tables', () => {
  it.each(PUBLISHED)('finds %s from its published table', async (algorithm, table) => {
    const data = pseudoRandom(20_000, 5);
    table.copy(data, 9_000);
    const found = await detectBuffer(data);
    expect(found.algorithms.filter((a) => a.kind === 'crypto').map((a) => a.algorithm)).toContain(algorithm);
    expect(found.algorithms.find((a) => a.algorithm === algorithm)?.offset).toBeGreaterThanOrEqual(9_000);
  });

  it('finds every generated signature, each reported under its own family and algorithm', async () => {
    for (const signature of constantSignatures) {
      const data = pseudoRandom(2_000, 9);
      signature.bytes.copy(data, 700);
      const found = await detectBuffer(data, NOW, 512);
      expect(found.algorithms.some((a) => a.algorithm === signature.algorithm && a.offset === 700), signature.id).toBe(true);
    }
  });

  it('computes the whole AES S-box of FIPS-197 and its inverse', () => {
    expect(Buffer.from(AES_SBOX.slice(0, 16)).toString('hex')).toBe('637c777bf26b6fc53001672bfed7ab76');
    expect(Buffer.from(AES_SBOX.slice(240)).toString('hex')).toBe('8ca1890dbfe6426841992d0fb054bb16');
    expect(Buffer.from(AES_INV_SBOX.slice(0, 16)).toString('hex')).toBe('52096ad53036a538bf40a39e81f3d7fb');
    // all 256 entries, as the field search over every inverse computed them before (2026-11-30)
    expect(createHash('sha256').update(Buffer.from(AES_SBOX)).digest('hex')).toBe('c2d8e5eed6cbebd8625fc18f81486a7733c04f9b0129ffbe974c68b90308b4f2');
    AES_SBOX.forEach((s, x) => expect(AES_INV_SBOX[s]).toBe(x));
  });

  it('computes the whole SHA-256 and SHA-512 round constant tables of FIPS 180-4', () => {
    expect(SHA256_K).toHaveLength(64);
    expect(SHA512_K).toHaveLength(80);
    expect([SHA256_K[0], SHA256_K[31], SHA256_K[63]]).toEqual([0x428a2f98, 0x14292967, 0xc67178f2]);
    expect([SHA512_K[0], SHA512_K[40], SHA512_K[64], SHA512_K[79]]).toEqual([0x428a2f98d728ae22n, 0xa2bfe8a14cf10364n, 0xca273eceea26619cn, 0x6c44198c4a475817n]);
    // every entry, as the roots computed in BigInt arithmetic from a power of two gave them (2026-12-02)
    expect(createHash('sha256').update(u32(SHA256_K, 'be')).digest('hex')).toBe('e4c62ae41929873b99fa3f871694451c9dbd0300448aba7ea4ff6d68a6b52d95');
    expect(createHash('sha256').update(SHA512_K.map((k) => k.toString(16).padStart(16, '0')).join('')).digest('hex')).toBe('515a5ed120be405b03ee740b7dd1ff8fde2a944ee51f714f02e89e5ebbd3db18');
  });

  it('names well-known Diffie-Hellman groups and their size', async () => {
    const { getDiffieHellman } = await import('node:crypto');
    const prime = getDiffieHellman('modp2').getPrime();
    const found = await detectBuffer(Buffer.concat([pseudoRandom(1000), prime, pseudoRandom(1000, 2), Buffer.from(getDiffieHellman('modp14').getPrime()).reverse()]));
    const dh = found.algorithms.filter((a) => a.algorithm === 'DH').map((a) => [a.parameter, a.what]);
    expect(dh).toEqual(expect.arrayContaining([[undefined, 'DH RFC 2409/3526 MODP group prime'], ['1024', 'DH RFC 2409 MODP group 2 (1024-bit) prime'], ['2048', 'DH RFC 3526 MODP group 14 (2048-bit) prime']]));
    // Group 2 is RFC 2409's (RFC 3526 defines groups 5 and 14-18 only); each prime is named once, by its own size.
    expect(dh.filter(([parameter]) => parameter !== undefined)).toHaveLength(2);
    const ffdhe2048Head = Buffer.from('ffffffffffffffffadf85458a2bb4a9aafdc5620273d3cf1d8b9c583ce2d3695', 'hex');
    expect((await detectBuffer(Buffer.concat([pseudoRandom(64), ffdhe2048Head]))).algorithms.map((a) => a.what)).toEqual(['DH RFC 7919 ffdhe group prime']);
  });

  it('knows the MODP tails and sizes node:crypto gives for each group (they are written out, not asked at start)', async () => {
    const { getDiffieHellman } = await import('node:crypto');
    for (const { group, bits, tail } of MODP_GROUPS) {
      const prime = getDiffieHellman(group).getPrime('hex');
      expect([group, prime.length * 4, prime.slice(-48)]).toEqual([group, bits, tail]);
    }
    expect(MODP_GROUPS.map((g) => g.group)).toEqual(['modp1', 'modp2', 'modp5', 'modp14', 'modp15', 'modp16', 'modp17', 'modp18']);
  });

  it('reads the parameter set from post-quantum names', async () => {
    const found = await detectBuffer(Buffer.from('\0X25519MLKEM768\0dilithium3\0ML-DSA-87\0SLH-DSA-SHAKE-256f\0'));
    expect(found.algorithms.map((a) => [a.algorithm, a.parameter]).sort()).toEqual([['ML-DSA', '65'], ['ML-DSA', '87'], ['ML-KEM', '768'], ['SLH-DSA', undefined]]);
  });

  it('finds nothing in random data', async () => {
    const found = await detectBuffer(pseudoRandom(1 << 20, 1234), NOW, 65536);
    expect(found.algorithms).toEqual([]);
    expect(found.materials).toEqual([]);
  });

  it('classifies CRC tables as non-crypto, and the analyzer keeps them out of the crypto inventory', async () => {
    const crc = Array.from({ length: 256 }, (_, n) => {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
      return c >>> 0;
    });
    const data = Buffer.concat([pseudoRandom(3000, 2), u32(crc), pseudoRandom(3000, 3)]);
    const found = await detectBuffer(data);
    expect(found.algorithms).toEqual([expect.objectContaining({ algorithm: 'CRC-32', kind: 'non-crypto' })]);
    const { dir, cleanup } = await tempDir();
    try {
      await writeFile(join(dir, 'crc.bin'), data);
      const ctx = await analyze(dir, ['crc.bin']);
      expect(ctx.cryptoAssets).toEqual([]);
      expect(ctx.findings).toEqual([]);
    } finally {
      await cleanup();
    }
  });

  const libcrypto = needSystemFile(['/usr/lib/x86_64-linux-gnu/libcrypto.so.3', '/usr/lib/aarch64-linux-gnu/libcrypto.so.3'], 'openssl', 'the real libcrypto test');
  it.skipIf(!libcrypto)('finds the tables and the library in a real OpenSSL 3 libcrypto', async () => {
    const handle = await open(libcrypto!, 'r');
    try {
      const read = async (offset: number, length: number) => {
        const b = Buffer.alloc(length);
        const { bytesRead } = await handle.read(b, 0, length, offset);
        return b.subarray(0, bytesRead);
      };
      const found = await detectFile('libcrypto.so.3', createReadStream(libcrypto!), read, { now: NOW });
      const algorithms = new Set(found.algorithms.filter((a) => a.method === 'constant-table').map((a) => a.algorithm));
      for (const expected of ['AES', 'SHA-256', 'SHA-512', 'SHA-3', 'Blowfish', 'DES']) expect(algorithms, expected).toContain(expected);
      expect(found.libraries.map((l) => l.name)).toContain('OpenSSL');
      expect(found.libraries.find((l) => l.name === 'OpenSSL')?.version).toMatch(/^3\.\d+\.\d+/);
    } finally {
      await handle.close();
    }
  });
});
