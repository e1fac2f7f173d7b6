// Finds DER-encoded certificates, keys and PKCS#12 containers anywhere in a file (raw flash, EFI signature
// lists, PE Authenticode blobs, key files). The scanner reports anchor hits (bytes every such structure
// contains at a fixed distance from its start); each hit is turned into candidate starts, read back, and kept
// only when node:crypto or the PKCS#12 reader accepts it.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { describeCertificate } from './certificates.js';
import { derDeclaredSize } from './der.js';
import { keyObjectFacts, publicKeyId } from './key-facts.js';
import type { Material } from './material.js';
import { looksLikePkcs12, openPkcs12 } from './pkcs12.js';

export type DerKind = 'certificate' | 'key-oid' | 'sec1' | 'pkcs1' | 'pkcs1-public' | 'pkcs12';

export interface DerAnchor {
  kind: DerKind;
  bytes: Buffer;
}

const hex = (s: string): Buffer => Buffer.from(s.replace(/ /g, ''), 'hex');

export const DER_ANCHORS: DerAnchor[] = [
  // TBSCertificate's version [0] EXPLICIT INTEGER 2 (v3).
  { kind: 'certificate', bytes: hex('a0 03 02 01 02') },
  // AlgorithmIdentifier OIDs of SPKI and PKCS#8: rsaEncryption, id-ecPublicKey, DSA, Ed25519, Ed448, X25519.
  { kind: 'key-oid', bytes: hex('06 09 2a 86 48 86 f7 0d 01 01 01') },
  { kind: 'key-oid', bytes: hex('06 07 2a 86 48 ce 3d 02 01') },
  { kind: 'key-oid', bytes: hex('06 07 2a 86 48 ce 38 04 01') },
  { kind: 'key-oid', bytes: hex('06 03 2b 65 70') },
  { kind: 'key-oid', bytes: hex('06 03 2b 65 71') },
  { kind: 'key-oid', bytes: hex('06 03 2b 65 6e') },
  // ECPrivateKey: version 1, then the private key octet string (P-256/secp256k1, P-384, P-521).
  { kind: 'sec1', bytes: hex('02 01 01 04 20') },
  { kind: 'sec1', bytes: hex('02 01 01 04 30') },
  { kind: 'sec1', bytes: hex('02 01 01 04 41') },
  { kind: 'sec1', bytes: hex('02 01 01 04 42') },
  // RSAPrivateKey: version 0, then the modulus INTEGER with a long-form length.
  { kind: 'pkcs1', bytes: hex('02 01 00 02 82') },
  { kind: 'pkcs1', bytes: hex('02 01 00 02 81') },
  // RSAPublicKey (raw RSA public keys embedded by signature verifiers): the modulus INTEGER of common sizes.
  { kind: 'pkcs1-public', bytes: hex('02 81 81 00') },
  { kind: 'pkcs1-public', bytes: hex('02 82 01 01 00') },
  { kind: 'pkcs1-public', bytes: hex('02 82 01 81 00') },
  { kind: 'pkcs1-public', bytes: hex('02 82 02 01 00') },
  // PFX: version 3, then the authSafe ContentInfo.
  { kind: 'pkcs12', bytes: hex('02 01 03 30 82') },
];

/** How far before the anchor the structure may start. */
const LOOK_BACK: Record<DerKind, number> = { certificate: 8, 'key-oid': 12, sec1: 3, pkcs1: 4, 'pkcs1-public': 4, pkcs12: 4 };
const MAX_DER = 65536;

export type RangeReader = (offset: number, length: number) => Promise<Buffer>;

const EFI_CERT_X509 = hex('a1 59 c0 a5 e4 94 a7 4a 87 b5 ab 15 5c 2b f0 72');

/** Name of the UEFI variable whose data contains `at` (authenticated or plain variable headers). */
async function efiVariableName(read: RangeReader, at: number): Promise<string | undefined> {
  const from = Math.max(0, at - 16384);
  const window = await read(from, at - from);
  for (let h = window.lastIndexOf(hex('aa 55')); h >= 0; h = h > 0 ? window.lastIndexOf(hex('aa 55'), h - 1) : -1) {
    for (const [sizes, nameAt] of [[36, 60], [8, 32]] as const) {
      if (h + nameAt > window.length) continue;
      const nameSize = window.readUInt32LE(h + sizes);
      const dataSize = window.readUInt32LE(h + sizes + 4);
      const dataStart = from + h + nameAt + nameSize;
      if (nameSize < 4 || nameSize > 128 || nameSize % 2 || at < dataStart || at >= dataStart + dataSize) continue;
      if (h + nameAt + nameSize > window.length) continue;
      const name = window.toString('utf16le', h + nameAt, h + nameAt + nameSize).replace(/\0+$/, '');
      if (/^[\x20-\x7e]+$/.test(name)) return name;
    }
  }
  return undefined;
}

async function certificateContext(read: RangeReader, start: number): Promise<Record<string, string> | undefined> {
  if (start < 44) return undefined;
  const before = await read(start - 44, 44);
  if (!before.subarray(0, 16).equals(EFI_CERT_X509)) return undefined;
  const owner = before.subarray(28, 44);
  // copies: the bytes read may be the file's shared contents (FileIndex), which must not be reversed in place
  const guid = [Buffer.from(owner.subarray(0, 4)).reverse(), Buffer.from(owner.subarray(4, 6)).reverse(), Buffer.from(owner.subarray(6, 8)).reverse(), owner.subarray(8, 10), owner.subarray(10)].map((b) => b.toString('hex')).join('-');
  const variable = await efiVariableName(read, start - 44);
  return { container: 'EFI signature list', signatureOwner: guid, ...(variable ? { efiVariable: variable } : {}) };
}

function parseAt(kind: DerKind, der: Buffer, offset: number, now: Date): Material[] {
  const base = { format: 'DER', offset, length: der.length };
  switch (kind) {
    case 'certificate': {
      const certificate = describeCertificate(der, now);
      return [{ ...base, kind: 'certificate', encoding: 'X.509', certificate, key: certificate.key }];
    }
    case 'key-oid':
      try {
        const key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
        return [{ ...base, kind: 'private-key', encoding: 'PKCS#8', key: keyObjectFacts(key), keyId: publicKeyId(createPublicKey(key)), encrypted: false }];
      } catch {
        const key = createPublicKey({ key: der, format: 'der', type: 'spki' });
        return [{ ...base, kind: 'public-key', encoding: 'SPKI', key: keyObjectFacts(key), keyId: publicKeyId(key) }];
      }
    case 'pkcs1-public': {
      const key = createPublicKey({ key: der, format: 'der', type: 'pkcs1' });
      return [{ ...base, kind: 'public-key', encoding: 'PKCS#1', key: keyObjectFacts(key), keyId: publicKeyId(key) }];
    }
    case 'sec1':
    case 'pkcs1': {
      const key = createPrivateKey({ key: der, format: 'der', type: kind });
      return [{ ...base, kind: 'private-key', encoding: kind === 'sec1' ? 'SEC1' : 'PKCS#1', key: keyObjectFacts(key), keyId: publicKeyId(createPublicKey(key)), encrypted: false }];
    }
    case 'pkcs12': {
      if (!looksLikePkcs12(der)) return [];
      const contents = openPkcs12(der);
      const container = { container: 'PKCS#12', ...(contents.encryption.length ? { bagEncryption: contents.encryption.join(', ') } : {}) };
      const items: Material[] = [];
      for (const cert of contents.certificates) {
        const certificate = describeCertificate(cert, now);
        items.push({ ...base, format: 'PKCS#12', kind: 'certificate', encoding: 'X.509', certificate, key: certificate.key, context: container });
      }
      for (const keyDer of contents.privateKeys) {
        try {
          const key = createPrivateKey({ key: keyDer, format: 'der', type: 'pkcs8' });
          items.push({ ...base, format: 'PKCS#12', kind: 'private-key', encoding: 'PKCS#8', key: keyObjectFacts(key), keyId: publicKeyId(createPublicKey(key)), encrypted: true, weakPassword: contents.password, context: container });
        } catch {
          items.push({ ...base, format: 'PKCS#12', kind: 'private-key', encrypted: true, weakPassword: contents.password, context: container });
        }
      }
      if (contents.password === undefined) items.push({ ...base, format: 'PKCS#12', kind: 'private-key', encrypted: true, encryption: contents.encryption.join(', ') || undefined, context: { ...container, note: 'password not found; contents not read' } });
      return items;
    }
  }
}

/** Turns one anchor hit into the items found at it (usually zero or one). */
export async function carveAt(kind: DerKind, anchorOffset: number, read: RangeReader, now: Date): Promise<Material[]> {
  const back = LOOK_BACK[kind];
  const from = Math.max(0, anchorOffset - back);
  const head = await read(from, anchorOffset - from + 8);
  for (let s = anchorOffset - from - 2; s >= 0; s--) {
    if (head[s] !== 0x30) continue;
    const size = derDeclaredSize(head, s);
    const start = from + s;
    if (size < anchorOffset - start + 4 || size > MAX_DER) continue;
    const der = await read(start, size);
    if (der.length !== size) continue;
    try {
      const items = parseAt(kind, der, start, now);
      if (!items.length) continue;
      if (kind === 'certificate') {
        const context = await certificateContext(read, start);
        if (context) for (const item of items) item.context = context;
      }
      return items;
    } catch {
      // not this start (or not this structure): try the next candidate
    }
  }
  return [];
}

/** Certificates inside an in-memory DER blob (PKCS#7 bundles, signature blobs). */
export function certificatesInDer(buf: Buffer, now: Date): Material[] {
  const out: Material[] = [];
  const anchor = DER_ANCHORS[0]!.bytes;
  for (let at = buf.indexOf(anchor); at >= 0; at = buf.indexOf(anchor, at + 1)) {
    for (const s of [at - 8, at - 7, at - 6]) {
      if (s < 0 || buf[s] !== 0x30) continue;
      const size = derDeclaredSize(buf, s);
      if (size <= 0 || s + size > buf.length) continue;
      try {
        const certificate = describeCertificate(buf.subarray(s, s + size), now);
        out.push({ kind: 'certificate', format: 'DER', encoding: 'X.509', offset: s, length: size, certificate, key: certificate.key });
        break;
      } catch {
        // not a certificate at this start
      }
    }
  }
  return out;
}
