// PEM blocks (RFC 7468 and OpenSSL's traditional forms): certificates, private keys in every armour
// (PKCS#8, PKCS#1 'RSA', SEC1 'EC', 'DSA', encrypted PKCS#8, legacy Proc-Type encryption, OpenSSH), public keys
// and PKCS#7 bundles. Each block becomes Material; an armour whose body does not parse is not a key.
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { describeCertificate } from './certificates.js';
import { derChildren, derElement, derOid, derPath } from './der.js';
import { keyObjectFacts, publicKeyId } from './key-facts.js';
import { COMMON_PASSWORDS, type Material } from './material.js';
import { oidName } from './oids.js';
import { parseOpenSshPrivateKey } from './ssh-keys.js';
import { certificatesInDer } from './der-carver.js';

const BLOCK = /-----BEGIN ([A-Z0-9 ]{1,40})-----\r?\n([\s\S]{0,65536}?)-----END \1-----/;

const PRIVATE = new Set(['PRIVATE KEY', 'RSA PRIVATE KEY', 'EC PRIVATE KEY', 'DSA PRIVATE KEY', 'ENCRYPTED PRIVATE KEY']);
const PUBLIC = new Set(['PUBLIC KEY', 'RSA PUBLIC KEY']);
const CERTS = new Set(['CERTIFICATE', 'X509 CERTIFICATE', 'TRUSTED CERTIFICATE']);

const ENCODING: Record<string, string> = {
  'PRIVATE KEY': 'PKCS#8', 'ENCRYPTED PRIVATE KEY': 'PKCS#8', 'RSA PRIVATE KEY': 'PKCS#1', 'EC PRIVATE KEY': 'SEC1',
  'DSA PRIVATE KEY': 'OpenSSL DSA', 'PUBLIC KEY': 'SPKI', 'RSA PUBLIC KEY': 'PKCS#1', 'OPENSSH PRIVATE KEY': 'openssh-key-v1',
};

function base64Body(body: string): Buffer {
  // Drop RFC 1421 headers (Proc-Type, DEK-Info) before the blank line.
  const text = /^[A-Za-z-]+:/.test(body) ? body.slice(body.search(/\r?\n\r?\n/) + 1) : body;
  return Buffer.from(text.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
}

/** The cipher of an encrypted PKCS#8 body: PBES2's encryption scheme, or the PBE OID itself. */
function pkcs8Encryption(der: Buffer): string | undefined {
  const scheme = derOid(der, derPath(der, 0, 0, 0));
  if (scheme === '1.2.840.113549.1.5.13') return `PBES2 ${oidName(derOid(der, derPath(der, 0, 0, 1, 1, 0))) ?? ''}`.trim();
  return oidName(scheme);
}

const NAMED_CIPHERS: Record<string, string> = {
  '2.16.840.1.101.3.4.1.2': 'aes-128-cbc', '2.16.840.1.101.3.4.1.22': 'aes-192-cbc', '2.16.840.1.101.3.4.1.42': 'aes-256-cbc', '1.2.840.113549.3.7': 'des-ede3-cbc', '1.3.14.3.2.7': 'des-cbc',
};

function openPrivate(block: string, label: string, body: Buffer): { key?: KeyObject; encrypted: boolean; password?: string; encryption?: string } {
  const legacy = /DEK-Info: ([A-Z0-9-]+)/.exec(block)?.[1];
  let encryption = legacy;
  if (label === 'ENCRYPTED PRIVATE KEY') {
    encryption = pkcs8Encryption(body);
    const cipherOid = derOid(body, derPath(body, 0, 0, 1, 1, 0));
    if (encryption && cipherOid && NAMED_CIPHERS[cipherOid]) encryption = `PBES2 ${NAMED_CIPHERS[cipherOid]}`;
  }
  const encrypted = label === 'ENCRYPTED PRIVATE KEY' || /Proc-Type: 4,ENCRYPTED/.test(block);
  if (!encrypted) return { key: createPrivateKey(block), encrypted };
  for (const passphrase of COMMON_PASSWORDS) {
    try {
      return { key: createPrivateKey({ key: block, passphrase }), encrypted, password: passphrase, encryption };
    } catch {
      // wrong password: try the next one
    }
  }
  // Structure check for encrypted PKCS#8: SEQUENCE { AlgorithmIdentifier, OCTET STRING }.
  if (label === 'ENCRYPTED PRIVATE KEY') {
    const outer = derElement(body, 0);
    const parts = outer ? derChildren(body, outer) : [];
    if (parts.length !== 2 || parts[1]!.tag !== 0x04) throw new Error('not an EncryptedPrivateKeyInfo');
  }
  return { encrypted, encryption };
}

/** Parses the PEM block at the start of `text` (offset is its position in the file). */
export function parsePemBlock(text: string, offset: number, now: Date): { length: number; items: Material[] } | undefined {
  const m = BLOCK.exec(text);
  if (!m || m.index !== 0) return undefined;
  const [block, label] = [m[0], m[1]!];
  const body = base64Body(m[2]!);
  const base = { format: 'PEM', offset, length: block.length, encoding: ENCODING[label] };
  const items: Material[] = [];
  try {
    if (CERTS.has(label)) {
      const size = derElement(body, 0)?.end ?? body.length;
      const certificate = describeCertificate(body.subarray(0, size), now);
      items.push({ ...base, kind: 'certificate', encoding: 'X.509', certificate, key: certificate.key });
    } else if (PRIVATE.has(label)) {
      const opened = openPrivate(block, label, body);
      items.push({
        ...base,
        kind: 'private-key',
        key: opened.key ? keyObjectFacts(opened.key) : undefined,
        keyId: opened.key ? publicKeyId(createPublicKey(opened.key)) : undefined,
        encrypted: opened.encrypted,
        encryption: opened.encryption,
        weakPassword: opened.encrypted ? opened.password : undefined,
      });
    } else if (PUBLIC.has(label)) {
      const key = createPublicKey(block);
      items.push({ ...base, kind: 'public-key', key: keyObjectFacts(key), keyId: publicKeyId(key) });
    } else if (label === 'OPENSSH PRIVATE KEY') {
      const ssh = parseOpenSshPrivateKey(body);
      items.push({ ...base, format: 'OpenSSH', kind: 'private-key', key: ssh.key, keyId: ssh.keyId, encrypted: ssh.encrypted, encryption: ssh.encrypted ? ssh.cipher : undefined, comment: ssh.comment });
    } else if (label === 'PKCS7' || label === 'CMS') {
      for (const cert of certificatesInDer(body, now)) items.push({ ...cert, format: 'PEM', encoding: 'PKCS#7', offset, length: block.length });
    } else {
      return { length: block.length, items: [] };
    }
  } catch {
    // An armour around something that is not a key or certificate (placeholder text, truncated body).
    return { length: block.length, items: [] };
  }
  return { length: block.length, items };
}
