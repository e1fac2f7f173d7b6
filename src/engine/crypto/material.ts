// Keys, certificates and key containers found in a file: the common record every parser (PEM, DER carver,
// SSH, usign, PKCS#12) returns, and the rule that an item inside another one (the public key inside a
// certificate) is reported only once, as the outer item.
import type { CertificateFacts } from './certificates.js';
import type { KeyFacts } from './key-facts.js';

export type MaterialKind = 'certificate' | 'private-key' | 'public-key' | 'signature';

export interface Material {
  kind: MaterialKind;
  /** 'PEM', 'DER', 'OpenSSH', 'SSH public key', 'usign', 'dropbear', 'PKCS#12', ... */
  format: string;
  /** 'PKCS#1', 'PKCS#8', 'SEC1', 'SPKI', 'X.509', 'EFI signature list', ... */
  encoding?: string;
  offset: number;
  length: number;
  key?: KeyFacts;
  certificate?: CertificateFacts;
  /** SHA-256 of the public key, when it can be computed: the same key in two places has one id. */
  keyId?: string;
  encrypted?: boolean;
  /** How the key is protected (PEM DEK-Info, PBES2 cipher, OpenSSH cipher). */
  encryption?: string;
  /** The password that opened a protected container, when a common or empty one did. */
  weakPassword?: string;
  comment?: string;
  /** Where it sits: EFI variable name ('db', 'KEK', 'PK'), container path, ... */
  context?: Record<string, string>;
}

/** Drops items that lie inside a larger item of the same file. */
export function outermost(items: Material[]): Material[] {
  const sorted = [...items].sort((a, b) => b.length - a.length || a.offset - b.offset);
  const kept: Material[] = [];
  for (const item of sorted) {
    // Items of one container (the certificates and keys of a PKCS#12 or PKCS#7) share its range and all stay.
    const inside = kept.some(
      (outer) => item.offset >= outer.offset && item.offset + item.length <= outer.offset + outer.length && !(item.offset === outer.offset && item.length === outer.length && item.format === outer.format),
    );
    if (!inside) kept.push(item);
  }
  return kept.sort((a, b) => a.offset - b.offset);
}

/** Passwords tried on protected keys and containers: empty and the most common defaults. */
export const COMMON_PASSWORDS = ['', 'password', '123456', '12345678', 'changeit', 'secret', 'admin', 'test', '1234', 'pass'];
