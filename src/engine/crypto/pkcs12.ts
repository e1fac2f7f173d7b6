// PKCS#12 (PFX) containers: opened with node-forge, whose pure-JS ciphers include the legacy RC2-40 and 3DES
// PBEs that OpenSSL 3 only has in its legacy provider. Tried with the empty and common passwords; a container
// that opens yields its certificates (DER) and private keys (PKCS#8 DER), and the password that opened it.
// Why node-forge: Node's crypto has no PKCS#12 reader, and the WebCrypto-based alternatives (pkijs) cannot
// decrypt the RC2 and 3DES PBES1 bags that most firmware containers still use.
import { createRequire } from 'node:module';
import type forgeTypes from 'node-forge';
import { derChildren, derElement, derOid } from './der.js';
import { COMMON_PASSWORDS } from './material.js';
import { oidName } from './oids.js';
import { pkcs12Key, pkcs12KdfHash } from './pkcs12-kdf.js';

/** node-forge (80 ms to load) is loaded when the first container is opened: most images hold none. */
let forgeModule: typeof forgeTypes | undefined;
const loadForge = (): typeof forgeTypes => (forgeModule ??= withNativeKdf(createRequire(import.meta.url)('node-forge') as typeof forgeTypes));

type Pkcs12KeyFunction = (password: string | null | undefined, salt: forgeTypes.util.ByteStringBuffer, id: number, iter: number, n: number, md?: forgeTypes.md.MessageDigest) => forgeTypes.util.ByteStringBuffer;

/**
 * Has forge derive PKCS#12 keys with Node's hashes (pkcs12-kdf.ts) instead of its JavaScript ones. Its PBE ciphers
 * call pki.pbe.generatePkcs12Key, and its MAC check pkcs12.generateKey, a copy taken when it loaded; a digest
 * Node has no name for goes to forge's own.
 */
export function withNativeKdf(forge: typeof forgeTypes): typeof forgeTypes {
  const pbe = (forge.pki as unknown as { pbe: { generatePkcs12Key: Pkcs12KeyFunction } }).pbe;
  const p12 = forge.pkcs12 as unknown as { generateKey: Pkcs12KeyFunction };
  const forgeKdf = pbe.generatePkcs12Key;
  const native: Pkcs12KeyFunction = (password, salt, id, iter, n, md) => {
    const hash = md ? md.algorithm : 'sha1';
    if (!pkcs12KdfHash(hash)) return forgeKdf(password, salt, id, iter, n, md);
    const key = pkcs12Key(password ?? undefined, Buffer.from(salt.bytes(), 'binary'), id, iter, n, hash);
    return forge.util.createBuffer(key.toString('binary'));
  };
  pbe.generatePkcs12Key = native;
  p12.generateKey = native;
  return forge;
}

export interface Pkcs12Contents {
  password?: string;
  certificates: Buffer[];
  privateKeys: Buffer[];
  /** Bag encryption algorithms seen, e.g. 'pbeWithSHAAnd40BitRC2-CBC'. */
  encryption: string[];
  /** Why the contents could not be read, when they could not. */
  error?: string;
}

/** True when `der` starts like a PFX: SEQUENCE { INTEGER 3, SEQUENCE { OID pkcs7-data | pkcs7-signedData ... } }. */
export function looksLikePkcs12(der: Buffer): boolean {
  const outer = derElement(der, 0);
  if (!outer || outer.tag !== 0x30) return false;
  const [version, authSafe] = derChildren(der, outer);
  if (!version || version.tag !== 0x02 || version.end - version.content !== 1 || der[version.content] !== 3) return false;
  if (!authSafe || authSafe.tag !== 0x30) return false;
  const oid = derOid(der, derChildren(der, authSafe)[0]);
  return oid === '1.2.840.113549.1.7.1' || oid === '1.2.840.113549.1.7.2';
}

const toDer = (asn1: forgeTypes.asn1.Asn1): Buffer => Buffer.from(loadForge().asn1.toDer(asn1).getBytes(), 'binary');

/** Algorithms named by the OIDs of encrypted bags, read from the raw DER (also when no password works). */
function encryptionOids(der: Buffer): string[] {
  const found = new Set<string>();
  const pbe = ['1.2.840.113549.1.12.1.', '1.2.840.113549.1.5.13'];
  for (let at = der.indexOf(0x06); at >= 0 && at < der.length; at = der.indexOf(0x06, at + 1)) {
    const oid = derOid(der, derElement(der, at));
    if (oid && pbe.some((p) => oid.startsWith(p))) found.add(oidName(oid)!);
  }
  return [...found];
}

export function openPkcs12(der: Buffer, passwords: readonly string[] = COMMON_PASSWORDS): Pkcs12Contents {
  const encryption = encryptionOids(der);
  const forge = loadForge();
  let asn1: forgeTypes.asn1.Asn1;
  try {
    asn1 = forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary')));
  } catch (error) {
    return { certificates: [], privateKeys: [], encryption, error: `not DER: ${(error as Error).message}` };
  }
  let lastError = 'no password opened it';
  for (const password of passwords) {
    let p12: forgeTypes.pkcs12.Pkcs12Pfx;
    try {
      p12 = forge.pkcs12.pkcs12FromAsn1(asn1, false, password);
    } catch (error) {
      lastError = (error as Error).message;
      continue;
    }
    const certificates: Buffer[] = [];
    const privateKeys: Buffer[] = [];
    for (const bag of p12.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? []) {
      if (bag.cert) certificates.push(toDer(forge.pki.certificateToAsn1(bag.cert)));
      else if (bag.asn1) certificates.push(toDer(bag.asn1));
    }
    for (const type of [forge.pki.oids.pkcs8ShroudedKeyBag!, forge.pki.oids.keyBag!]) {
      for (const bag of p12.getBags({ bagType: type })[type] ?? []) {
        if (bag.key) privateKeys.push(toDer(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key))));
        else if (bag.asn1) privateKeys.push(toDer(bag.asn1));
      }
    }
    return { password, certificates, privateKeys, encryption };
  }
  return { certificates: [], privateKeys: [], encryption, error: lastError };
}
