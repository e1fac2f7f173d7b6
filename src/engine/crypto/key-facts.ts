// Facts about a key, whatever it came from (node KeyObject, SSH blob, usign file): type, size, curve, and the
// catalog algorithm (pqc.ts) it is used with.
import type { KeyObject } from 'node:crypto';
import { sha256Hex } from '../hash.js';
import { NODE_CURVES } from './oids.js';

export interface KeyFacts {
  /** 'RSA' | 'EC' | 'Ed25519' | 'Ed448' | 'DSA' | 'DH' | 'X25519' | 'X448' | 'ML-DSA' | ... */
  keyType: string;
  /** Catalog algorithm: 'RSA', 'ECDSA', 'Ed25519', 'DSA', 'DH', 'X25519', ... */
  algorithm: string;
  /** Key size in bits (modulus for RSA/DSA/DH, field size for curves). */
  bits?: number;
  curve?: string;
}

const CURVE_BITS: Record<string, number> = {
  'P-192': 192, 'P-224': 224, 'P-256': 256, 'P-384': 384, 'P-521': 521, secp256k1: 256,
  brainpoolP256r1: 256, brainpoolP384r1: 384, brainpoolP512r1: 512,
};

export function curveFacts(curve: string): KeyFacts {
  return { keyType: 'EC', algorithm: 'ECDSA', curve, bits: CURVE_BITS[curve] };
}

export function keyObjectFacts(key: KeyObject): KeyFacts {
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType as string | undefined) {
    case 'rsa':
    case 'rsa-pss':
      return { keyType: 'RSA', algorithm: 'RSA', bits: details.modulusLength };
    case 'dsa':
      return { keyType: 'DSA', algorithm: 'DSA', bits: details.modulusLength };
    case 'dh':
      return { keyType: 'DH', algorithm: 'DH', bits: details.modulusLength };
    case 'ec': {
      const curve = details.namedCurve ? (NODE_CURVES[details.namedCurve] ?? details.namedCurve) : undefined;
      return curve ? curveFacts(curve) : { keyType: 'EC', algorithm: 'ECDSA' };
    }
    case 'ed25519':
      return { keyType: 'Ed25519', algorithm: 'Ed25519', bits: 256, curve: 'Curve25519' };
    case 'ed448':
      return { keyType: 'Ed448', algorithm: 'Ed448', bits: 456, curve: 'Curve448' };
    case 'x25519':
      return { keyType: 'X25519', algorithm: 'X25519', bits: 256, curve: 'Curve25519' };
    case 'x448':
      return { keyType: 'X448', algorithm: 'X448', bits: 448, curve: 'Curve448' };
    default:
      return { keyType: String(key.asymmetricKeyType ?? 'unknown'), algorithm: String(key.asymmetricKeyType ?? 'unknown') };
  }
}

/** A short human label: 'RSA-2048', 'EC P-256', 'Ed25519'. */
export function keyLabel(facts: KeyFacts): string {
  if (facts.curve && facts.keyType === 'EC') return `EC ${facts.curve}`;
  if (facts.keyType === 'RSA' || facts.keyType === 'DSA' || facts.keyType === 'DH') return facts.bits ? `${facts.keyType}-${facts.bits}` : facts.keyType;
  return facts.keyType;
}

/** SHA-256 of the public key (SPKI DER when available): identity of a key across files and images. */
export function publicKeyId(key: KeyObject | Buffer): string {
  const der = Buffer.isBuffer(key) ? key : key.export({ type: 'spki', format: 'der' });
  return sha256Hex(der);
}
