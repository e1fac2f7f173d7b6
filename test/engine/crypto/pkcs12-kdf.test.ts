// The native PKCS#12 key derivation against node-forge's own (pki.pbe.generatePkcs12Key), which it replaces when
// a container is opened (crypto/pkcs12.ts): the same bytes for every hash forge can pass, id, length, salt and
// password, including the empty password (two zero bytes) and none at all (no bytes).
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import type forgeTypes from 'node-forge';
import { describe, expect, it } from 'vitest';
import { pkcs12Key, pkcs12KdfHash } from '../../../src/engine/crypto/pkcs12-kdf.js';
import { corpus, haveShared } from '../../support/shared.js';

// A copy of forge of its own: the test files of a worker share modules, and crypto/pkcs12.ts replaces the
// derivation in the copy it loads.
const require = createRequire(import.meta.url);
for (const path of Object.keys(require.cache)) if (path.includes('/node_modules/node-forge/')) delete require.cache[path];
const forge = require('node-forge') as typeof forgeTypes;
type ForgeKdf = (password: string | undefined, salt: forgeTypes.util.ByteStringBuffer, id: number, iter: number, n: number, md?: forgeTypes.md.MessageDigest) => forgeTypes.util.ByteStringBuffer;
const forgeKdf = (forge.pki as unknown as { pbe: { generatePkcs12Key: ForgeKdf } }).pbe.generatePkcs12Key;

function forgeKey(password: string | undefined, salt: Buffer, id: number, iterations: number, length: number, hash: string): Buffer {
  const md = (forge.md as unknown as Record<string, { create(): forgeTypes.md.MessageDigest }>)[hash]!.create();
  const key = forgeKdf(password, forge.util.createBuffer(salt.toString('binary')), id, iterations, length, md);
  return Buffer.from(key.bytes(), 'binary');
}

describe('pkcs12Key', () => {
  it('derives what node-forge derives, for every hash, id, length, salt and password', () => {
    const passwords = [undefined, '', 'password', 'changeit', 'p\u00e4ss\u20ac', 'x'.repeat(70)];
    let compared = 0;
    for (const hash of ['sha1', 'sha256', 'sha384', 'sha512', 'md5']) {
      expect(pkcs12KdfHash(hash)).toBe(true);
      for (const password of passwords) {
        for (const [id, length] of [[1, 24], [2, 8], [3, 20], [1, 5], [1, 70], [3, 64]] as const) {
          for (const salt of [Buffer.alloc(0), randomBytes(8), randomBytes(20), randomBytes(65)]) {
            const iterations = 1 + (compared % 3) * 7;
            expect(pkcs12Key(password, salt, id, iterations, length, hash), `${hash} ${password} ${id} ${length} ${salt.length}`).toEqual(forgeKey(password, salt, id, iterations, length, hash));
            compared++;
          }
        }
      }
    }
    expect(compared).toBe(5 * 6 * 6 * 4);
  });

  it('matches at the usual 2,048 iterations, and refuses fewer than one', () => {
    const salt = Buffer.from('0a58cf64530d823f', 'hex');
    expect(pkcs12Key('', salt, 3, 2048, 20, 'sha1')).toEqual(forgeKey('', salt, 3, 2048, 20, 'sha1'));
    expect(() => pkcs12Key('', salt, 1, 0, 20, 'sha1')).toThrow(/iteration count/);
  });

  it.skipIf(!haveShared('corpus', 'pkcs12.p12'))('is the derivation forge uses once crypto/pkcs12.ts has loaded it', async () => {
    const { readFile } = await import('node:fs/promises');
    const { withNativeKdf } = await import('../../../src/engine/crypto/pkcs12.js');
    const patched = withNativeKdf(forge);
    expect((patched.pki as unknown as { pbe: { generatePkcs12Key: ForgeKdf } }).pbe.generatePkcs12Key).not.toBe(forgeKdf);
    expect((patched.pkcs12 as unknown as { generateKey: ForgeKdf }).generateKey).not.toBe(forgeKdf);
    // the corpus container (RC2-40 and 3DES bags, SHA-1 MAC) opens with it, the empty password
    const der = await readFile(corpus('pkcs12.p12'));
    const p12 = patched.pkcs12.pkcs12FromAsn1(patched.asn1.fromDer(patched.util.createBuffer(der.toString('binary'))), false, '');
    expect(p12.getBags({ bagType: patched.pki.oids.certBag! })[patched.pki.oids.certBag!]).toHaveLength(1);
    expect(() => patched.pkcs12.pkcs12FromAsn1(patched.asn1.fromDer(patched.util.createBuffer(der.toString('binary'))), false, 'wrong')).toThrow(/MAC/i);
  });

  it('knows only the hashes it has block sizes for', () => {
    expect(pkcs12KdfHash('sha512/224')).toBe(false);
    expect(() => pkcs12Key('', Buffer.alloc(8), 1, 1, 8, 'sha224')).toThrow(/no PKCS#12 key derivation/);
  });
});
