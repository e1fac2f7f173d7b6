// Protocols seen in binaries: TLS (versions, IANA and OpenSSL cipher-suite names), SSH (banner and algorithm
// names), WireGuard (its Noise construction string), IKE daemons, and signed-update schemes (U-Boot FIT
// signature algorithm names). Cipher suites are decomposed into the catalog algorithms they use.
import type { AlgorithmSpec } from './libraries.js';

export type ProtocolName = 'TLS' | 'SSH' | 'IKE' | 'IPsec' | 'WireGuard' | 'signed-update';

export interface ProtocolPattern {
  protocol: ProtocolName;
  /** 'version' adds `value` to versions; 'suite-anchor' reads the whole suite name around the hit; 'algorithm' adds algorithms; 'marker' only shows presence. */
  role: 'version' | 'suite-anchor' | 'algorithm' | 'marker';
  text: string;
  value?: string;
  algorithms?: string[];
}

const tls = (text: string, value: string): ProtocolPattern => ({ protocol: 'TLS', role: 'version', text, value });
const ssh = (text: string, ...algorithms: string[]): ProtocolPattern => ({ protocol: 'SSH', role: 'algorithm', text, value: text, algorithms });
const fit = (text: string, ...algorithms: string[]): ProtocolPattern => ({ protocol: 'signed-update', role: 'algorithm', text, value: `U-Boot FIT ${text}`, algorithms });

export const PROTOCOL_PATTERNS: ProtocolPattern[] = [
  tls('TLSv1.3', 'TLS 1.3'), tls('TLSv1.2', 'TLS 1.2'), tls('TLSv1.1', 'TLS 1.1'), tls('TLSv1_method', 'TLS 1.0'), tls('SSLv3_method', 'SSL 3.0'), tls('SSLv2_method', 'SSL 2.0'), tls('DTLSv1.2', 'DTLS 1.2'),
  { protocol: 'TLS', role: 'suite-anchor', text: '_WITH_' },
  { protocol: 'TLS', role: 'suite-anchor', text: 'TLS_AES_' },
  { protocol: 'TLS', role: 'suite-anchor', text: 'TLS_CHACHA20_' },
  { protocol: 'TLS', role: 'suite-anchor', text: 'ECDHE-RSA-' },
  { protocol: 'TLS', role: 'suite-anchor', text: 'ECDHE-ECDSA-' },
  { protocol: 'TLS', role: 'suite-anchor', text: 'DHE-RSA-' },
  { protocol: 'SSH', role: 'marker', text: 'SSH-2.0-' },
  ssh('curve25519-sha256', 'X25519', 'SHA-256'), ssh('diffie-hellman-group1-sha1', 'DH:1024', 'SHA-1'), ssh('diffie-hellman-group14-sha1', 'DH:2048', 'SHA-1'),
  ssh('diffie-hellman-group14-sha256', 'DH:2048', 'SHA-256'), ssh('diffie-hellman-group16-sha512', 'DH:4096', 'SHA-512'), ssh('ecdh-sha2-nistp256', 'ECDH:P-256', 'SHA-256'), ssh('ecdh-sha2-nistp384', 'ECDH:P-384', 'SHA-384'),
  ssh('sntrup761x25519-sha512', 'X25519', 'SHA-512'), ssh('mlkem768x25519-sha256', 'ML-KEM:768', 'X25519', 'SHA-256'),
  ssh('aes128-ctr', 'AES:128:CTR'), ssh('aes256-ctr', 'AES:256:CTR'), ssh('aes128-gcm@openssh.com', 'AES:128:GCM'), ssh('aes256-gcm@openssh.com', 'AES:256:GCM'), ssh('chacha20-poly1305@openssh.com', 'ChaCha20-Poly1305'),
  ssh('3des-cbc', '3DES::CBC'), ssh('aes128-cbc', 'AES:128:CBC'), ssh('hmac-sha1', 'HMAC', 'SHA-1'), ssh('hmac-md5', 'HMAC', 'MD5'), ssh('hmac-sha2-256', 'HMAC', 'SHA-256'), ssh('hmac-sha2-512', 'HMAC', 'SHA-512'),
  ssh('rsa-sha2-256', 'RSA', 'SHA-256'), ssh('rsa-sha2-512', 'RSA', 'SHA-512'), ssh('ssh-ed25519', 'Ed25519'), ssh('ecdsa-sha2-nistp256', 'ECDSA:P-256'), ssh('ssh-dss', 'DSA:1024'),
  { protocol: 'WireGuard', role: 'algorithm', text: 'Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s', value: 'Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s', algorithms: ['X25519', 'ChaCha20-Poly1305', 'BLAKE2s'] },
  { protocol: 'IKE', role: 'marker', text: 'strongSwan' },
  { protocol: 'IKE', role: 'marker', text: 'racoon.conf' },
  fit('sha1,rsa2048', 'SHA-1', 'RSA:2048'), fit('sha256,rsa2048', 'SHA-256', 'RSA:2048'), fit('sha256,rsa3072', 'SHA-256', 'RSA:3072'), fit('sha256,rsa4096', 'SHA-256', 'RSA:4096'),
  fit('sha384,rsa4096', 'SHA-384', 'RSA:4096'), fit('sha512,rsa4096', 'SHA-512', 'RSA:4096'), fit('sha256,ecdsa256', 'SHA-256', 'ECDSA:P-256'), fit('sha384,ecdsa384', 'SHA-384', 'ECDSA:P-384'),
];

/** Extracts the cipher-suite token that contains position `at` of `text`. */
export function suiteAround(text: string, at: number): string | undefined {
  let start = at;
  while (start > 0 && /[A-Z0-9_-]/.test(text[start - 1]!)) start--;
  let end = at;
  while (end < text.length && /[A-Z0-9_-]/.test(text[end]!)) end++;
  const token = text.slice(start, end);
  if (/^(TLS|SSL)_[A-Z0-9_]+_WITH_[A-Z0-9_]+$/.test(token) || /^TLS_(AES|CHACHA20)_[A-Z0-9_]+_SHA\d+$/.test(token)) return token;
  if (/^(ECDHE|DHE|EDH)-[A-Z0-9-]+$/.test(token) && /(SHA|MD5|GCM|CCM|POLY1305)/.test(token) && token.length < 64) return token;
  return undefined;
}

const SUITE_PARTS: Array<[RegExp, string]> = [
  [/(^|[_-])ECDHE?([_-]|$)/, 'ECDH'], [/(^|[_-])(DHE|EDH|DH)([_-]|$)/, 'DH'], [/(^|[_-])ECDSA([_-]|$)/, 'ECDSA'], [/(^|[_-])RSA([_-]|$)/, 'RSA'], [/(^|[_-])DSS([_-]|$)/, 'DSA'],
  [/AES_?128/, 'AES:128'], [/AES_?256/, 'AES:256'], [/(3DES|DES_EDE3|DES-CBC3)/, '3DES'], [/(^|[_-])DES(_CBC|-CBC)?([_-]|$)(?!EDE)/, 'DES'], [/RC4/, 'RC4'], [/CHACHA20/, 'ChaCha20-Poly1305'],
  [/CAMELLIA_?128/, 'Camellia:128'], [/CAMELLIA_?256/, 'Camellia:256'], [/SHA384$/, 'SHA-384'], [/SHA256$/, 'SHA-256'], [/[_-]SHA$/, 'SHA-1'], [/MD5$/, 'MD5'],
];

/** The algorithms a cipher suite uses, with the bulk cipher's mode. */
export function suiteAlgorithms(suite: string): AlgorithmSpec[] {
  const mode = /GCM/.test(suite) ? 'GCM' : /CCM/.test(suite) ? 'CCM' : /CBC|[_-]SHA(256|384)?$/.test(suite) && !/GCM|CHACHA|RC4/.test(suite) ? 'CBC' : undefined;
  const seen = new Set<string>();
  const out: AlgorithmSpec[] = [];
  for (const [re, spec] of SUITE_PARTS) {
    if (!re.test(suite) || seen.has(spec) || (spec === 'DES' && seen.has('3DES'))) continue;
    seen.add(spec);
    const [algorithm, parameter] = spec.split(':');
    const symmetric = ['AES', '3DES', 'DES', 'Camellia'].includes(algorithm!);
    out.push({ algorithm: algorithm!, parameter, mode: symmetric ? mode : undefined });
  }
  // TLS 1.3 suites name no key exchange: ECDHE (or a hybrid) is implied by the protocol.
  if (/^TLS_(AES|CHACHA20)_/.test(suite)) out.push({ algorithm: 'ECDH' });
  return out;
}
