// SSH key formats: public key lines (authorized_keys, known_hosts, *.pub), OpenSSH private keys
// ('openssh-key-v1' inside PEM armour) and Dropbear's binary host keys. Wire format per RFC 4253 §6.6.
import { createPublicKey } from 'node:crypto';
import { curveFacts, publicKeyId, type KeyFacts } from './key-facts.js';

class WireReader {
  constructor(readonly buf: Buffer, public at = 0) {}
  uint32(): number {
    if (this.at + 4 > this.buf.length) throw new Error('truncated SSH structure');
    const value = this.buf.readUInt32BE(this.at);
    this.at += 4;
    return value;
  }
  bytes(): Buffer {
    const length = this.uint32();
    if (length > this.buf.length - this.at) throw new Error('truncated SSH string');
    const out = this.buf.subarray(this.at, this.at + length);
    this.at += length;
    return out;
  }
  string(): string {
    return this.bytes().toString('latin1');
  }
  get remaining(): number {
    return this.buf.length - this.at;
  }
}

const mpintBits = (m: Buffer): number => {
  let i = 0;
  while (i < m.length && m[i] === 0) i++;
  return i === m.length ? 0 : (m.length - i - 1) * 8 + (32 - Math.clz32(m[i]!));
};

const SSH_CURVES: Record<string, string> = { nistp256: 'P-256', nistp384: 'P-384', nistp521: 'P-521' };

export interface SshKey {
  sshType: string;
  key: KeyFacts;
  keyId: string;
}

/** Parses an SSH public key blob (string type, then type-specific fields); `reader` is left after it. */
function readPublicKey(reader: WireReader): SshKey {
  const start = reader.at;
  const sshType = reader.string();
  let key: KeyFacts;
  if (sshType === 'ssh-rsa') {
    const e = reader.bytes();
    const n = reader.bytes();
    key = { keyType: 'RSA', algorithm: 'RSA', bits: mpintBits(n) };
    const jwk = { kty: 'RSA', n: n.subarray(n[0] === 0 ? 1 : 0).toString('base64url'), e: e.toString('base64url') };
    const spki = createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'der' });
    return { sshType, key, keyId: publicKeyId(spki) };
  }
  if (sshType === 'ssh-dss') {
    const p = reader.bytes();
    reader.bytes();
    reader.bytes();
    reader.bytes();
    key = { keyType: 'DSA', algorithm: 'DSA', bits: mpintBits(p) };
  } else if (sshType === 'ssh-ed25519' || sshType === 'sk-ssh-ed25519@openssh.com') {
    if (reader.bytes().length !== 32) throw new Error('bad Ed25519 public key length');
    if (sshType.startsWith('sk-')) reader.string();
    key = { keyType: 'Ed25519', algorithm: 'Ed25519', bits: 256, curve: 'Curve25519' };
  } else if (/^(sk-)?ecdsa-sha2-nistp(256|384|521)/.test(sshType)) {
    const curve = SSH_CURVES[reader.string()];
    if (!curve) throw new Error('unknown ECDSA curve');
    reader.bytes();
    if (sshType.startsWith('sk-')) reader.string();
    key = curveFacts(curve);
  } else {
    throw new Error(`unsupported SSH key type ${sshType}`);
  }
  const blob = reader.buf.subarray(start, reader.at);
  return { sshType, key, keyId: publicKeyId(blob) };
}

export const SSH_PUBLIC_KEY_TYPES = ['ssh-rsa', 'ssh-dss', 'ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'sk-ssh-ed25519@openssh.com', 'sk-ecdsa-sha2-nistp256@openssh.com'];

/** A public key line 'type base64 [comment]' at the start of `text`; undefined when it does not parse. */
export function parseSshPublicKeyLine(text: string): (SshKey & { length: number; comment?: string }) | undefined {
  const m = /^([a-z0-9@.-]+) (AAAA[A-Za-z0-9+/]+={0,2})(?:[ \t]+([^\r\n]*))?/.exec(text);
  if (!m || !SSH_PUBLIC_KEY_TYPES.includes(m[1]!)) return undefined;
  try {
    const parsed = readPublicKey(new WireReader(Buffer.from(m[2]!, 'base64')));
    if (parsed.sshType !== m[1]) return undefined;
    return { ...parsed, length: m[0].length, comment: m[3]?.trim() || undefined };
  } catch {
    return undefined;
  }
}

export interface OpenSshPrivateKey extends SshKey {
  cipher: string;
  kdf: string;
  encrypted: boolean;
  comment?: string;
}

/** The body of an 'OPENSSH PRIVATE KEY' PEM block (already base64-decoded). */
export function parseOpenSshPrivateKey(body: Buffer): OpenSshPrivateKey {
  const magic = 'openssh-key-v1\0';
  if (body.toString('latin1', 0, magic.length) !== magic) throw new Error('not an openssh-key-v1 key');
  const reader = new WireReader(body, magic.length);
  const cipher = reader.string();
  const kdf = reader.string();
  reader.bytes();
  if (reader.uint32() < 1) throw new Error('no keys in OpenSSH key file');
  const publicBlob = reader.bytes();
  const parsed = readPublicKey(new WireReader(publicBlob));
  let comment: string | undefined;
  if (cipher === 'none') {
    // Private section: check1, check2, then the key, then the comment.
    try {
      const priv = new WireReader(reader.bytes());
      priv.uint32();
      priv.uint32();
      readPublicKey(priv);
      const extra: Record<string, number> = { 'ssh-rsa': 4, 'ssh-dss': 1, 'ssh-ed25519': 1 };
      for (let i = 0; i < (extra[parsed.sshType] ?? 1); i++) priv.bytes();
      comment = priv.string() || undefined;
    } catch {
      comment = undefined;
    }
  }
  return { ...parsed, cipher, kdf, encrypted: cipher !== 'none', comment };
}

const DROPBEAR_TYPES = ['ssh-rsa', 'ssh-dss', 'ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521'];

/** Dropbear's host key file: the public fields followed by the private ones; undefined when not one. */
export function parseDropbearKey(buf: Buffer): (SshKey & { length: number }) | undefined {
  if (buf.length < 16) return undefined;
  const length = buf.readUInt32BE(0);
  if (length > 32 || !DROPBEAR_TYPES.includes(buf.toString('latin1', 4, 4 + length))) return undefined;
  try {
    const reader = new WireReader(buf);
    if (buf.toString('latin1', 4, 4 + length) === 'ssh-ed25519') {
      reader.string();
      const both = reader.bytes();
      if (both.length !== 64) return undefined;
      return { sshType: 'ssh-ed25519', key: { keyType: 'Ed25519', algorithm: 'Ed25519', bits: 256, curve: 'Curve25519' }, keyId: publicKeyId(both.subarray(32)), length: reader.at };
    }
    const parsed = readPublicKey(reader);
    // A private key carries at least one more field (d, or x for DSA).
    if (reader.remaining < 4) return undefined;
    reader.bytes();
    return { ...parsed, length: reader.at };
  } catch {
    return undefined;
  }
}
