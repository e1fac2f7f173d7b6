// X.509 certificate facts: subject, issuer, serial, validity, key type and size, signature algorithm,
// self-signed, CA, expired or expiring. node:crypto parses and verifies; a small DER walk reads the two OIDs
// node does not expose (signature algorithm, public-key algorithm), so certificates with keys OpenSSL 3.0
// cannot load (ML-DSA, ...) are still described.
import { X509Certificate, createHash } from 'node:crypto';
import { sha256Hex } from '../hash.js';
import { derOid, derPath } from './der.js';
import { curveFacts, keyObjectFacts, type KeyFacts } from './key-facts.js';
import { OIDS, oidName } from './oids.js';

export const EXPIRING_DAYS = 90;

export interface CertificateFacts {
  subject: string;
  issuer: string;
  commonName?: string;
  serialNumber: string;
  notBefore: string;
  notAfter: string;
  signatureAlgorithm: string;
  signatureAlgorithmOid?: string;
  /** Catalog algorithms of the signature: e.g. 'RSA' and 'SHA-256'. */
  signatureScheme?: string;
  signatureHash?: string;
  key: KeyFacts;
  selfSigned: boolean;
  isCA: boolean;
  expired: boolean;
  notYetValid: boolean;
  expiringSoon: boolean;
  daysToExpiry: number;
  sha256: string;
  sha1: string;
  /** Size of the DER encoding. */
  size: number;
}

const oneLine = (name: string): string => name.split('\n').filter(Boolean).join(', ');

/** What depends on the day of the check; a certificate's facts taken from the analysis cache get them anew. */
export function validityFacts(notBefore: Date, notAfter: Date, now: Date): Pick<CertificateFacts, 'expired' | 'notYetValid' | 'expiringSoon' | 'daysToExpiry'> {
  const daysToExpiry = Math.floor((notAfter.getTime() - now.getTime()) / 86_400_000);
  return {
    expired: notAfter.getTime() < now.getTime(),
    notYetValid: notBefore.getTime() > now.getTime(),
    expiringSoon: daysToExpiry >= 0 && daysToExpiry <= EXPIRING_DAYS,
    daysToExpiry,
  };
}

/** Describes a DER certificate; throws when it is not one. */
export function describeCertificate(der: Buffer, now: Date): CertificateFacts {
  const cert = new X509Certificate(der);
  const sigOid = derOid(der, derPath(der, 0, 1, 0));
  const spkiOid = derOid(der, derPath(der, 0, 0, 6, 0, 0)) ?? derOid(der, derPath(der, 0, 0, 5, 0, 0));
  let key: KeyFacts;
  try {
    key = keyObjectFacts(cert.publicKey);
  } catch {
    const algorithm = (spkiOid && OIDS[spkiOid]?.algorithm) ?? spkiOid ?? 'unknown';
    key = { keyType: algorithm, algorithm };
  }
  if (key.keyType === 'EC' && !key.curve) {
    const curveOid = derOid(der, derPath(der, 0, 0, 6, 0, 1)) ?? derOid(der, derPath(der, 0, 0, 5, 0, 1));
    const curve = oidName(curveOid);
    if (curve) key = curveFacts(curve);
  }
  const notBefore = new Date(cert.validFrom);
  const notAfter = new Date(cert.validTo);
  let selfSigned = false;
  try {
    selfSigned = cert.checkIssued(cert) && cert.verify(cert.publicKey);
  } catch {
    selfSigned = cert.subject === cert.issuer;
  }
  const info = sigOid ? OIDS[sigOid] : undefined;
  return {
    subject: oneLine(cert.subject),
    issuer: oneLine(cert.issuer),
    commonName: /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1],
    serialNumber: cert.serialNumber.toUpperCase(),
    notBefore: notBefore.toISOString(),
    notAfter: notAfter.toISOString(),
    signatureAlgorithm: info?.name ?? sigOid ?? 'unknown',
    signatureAlgorithmOid: sigOid,
    signatureScheme: info?.algorithm,
    signatureHash: info?.hash,
    key,
    selfSigned,
    isCA: cert.ca,
    ...validityFacts(notBefore, notAfter, now),
    sha256: sha256Hex(der),
    sha1: createHash('sha1').update(der).digest('hex'),
    size: der.length,
  };
}
