// OpenWrt usign / OpenBSD signify files: 'untrusted comment: ...' then one base64 line. Public keys
// (/etc/opkg/keys/<fingerprint>) are 'Ed' + 8-byte fingerprint + 32-byte Ed25519 key; secret keys add a bcrypt
// KDF header ('BK', rounds, salt, checksum) and a 64-byte secret; signatures are 'Ed' + fingerprint + 64 bytes.
import { publicKeyId, type KeyFacts } from './key-facts.js';
import type { MaterialKind } from './material.js';

export interface UsignItem {
  kind: MaterialKind;
  fingerprint: string;
  comment: string;
  key: KeyFacts;
  keyId?: string;
  /** Secret keys: false when the KDF rounds are 0 (stored in clear). */
  encrypted?: boolean;
  length: number;
}

const ED25519: KeyFacts = { keyType: 'Ed25519', algorithm: 'Ed25519', bits: 256, curve: 'Curve25519' };

export function parseUsign(text: string): UsignItem | undefined {
  const m = /^untrusted comment: ?([^\r\n]*)\r?\n([A-Za-z0-9+/]+={0,2})[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return undefined;
  const blob = Buffer.from(m[2]!, 'base64');
  if (blob.toString('latin1', 0, 2) !== 'Ed') return undefined;
  const comment = m[1]!;
  const length = m[0].length;
  if (blob.length === 42) {
    const fingerprint = blob.subarray(2, 10).toString('hex');
    return { kind: 'public-key', fingerprint, comment, key: ED25519, keyId: publicKeyId(blob.subarray(10)), length };
  }
  if (blob.length === 104 && blob.toString('latin1', 2, 4) === 'BK') {
    const rounds = blob.readUInt32BE(4);
    const fingerprint = blob.subarray(32, 40).toString('hex');
    return { kind: 'private-key', fingerprint, comment, key: ED25519, keyId: publicKeyId(blob.subarray(72)), encrypted: rounds > 0, length };
  }
  if (blob.length === 74) {
    return { kind: 'signature', fingerprint: blob.subarray(2, 10).toString('hex'), comment, key: ED25519, length };
  }
  return undefined;
}
