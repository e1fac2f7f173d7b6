// Protocol configuration files: OpenSSH sshd_config, Dropbear (UCI), strongSwan/Libreswan ipsec.conf and
// swanctl.conf, racoon.conf, WireGuard (wg-quick files and OpenWrt UCI network), TLS server settings (nginx,
// lighttpd, Apache, openssl.cnf, stunnel), and opkg signature checking. Each yields protocol facts with the
// algorithms it enables; WireGuard private keys are also key material.
import { basename } from 'node:path';
import { sha256Hex } from '../hash.js';
import type { ProtocolHit } from './detections.js';
import type { AlgorithmSpec } from './libraries.js';
import { parseSpec } from './libraries.js';
import type { Material } from './material.js';
import { PROTOCOL_PATTERNS, suiteAlgorithms, type ProtocolName } from './protocols.js';

export const CONFIG_GLOBS = [
  '**/sshd_config', '**/sshd_config.d/*.conf', '**/etc/config/dropbear', '**/ipsec.conf', '**/swanctl.conf', '**/swanctl/conf.d/*.conf', '**/racoon.conf',
  '**/wireguard/*.conf', '**/wg*.conf', '**/etc/config/network', '**/nginx.conf', '**/nginx/**/*.conf', '**/lighttpd.conf', '**/lighttpd/**/*.conf',
  '**/httpd.conf', '**/ssl.conf', '**/openssl.cnf', '**/stunnel.conf', '**/opkg.conf', '**/etc/config/uhttpd',
];

export interface ConfigDetections {
  protocols: ProtocolHit[];
  materials: Material[];
}

const SSH_NAMES = new Map(PROTOCOL_PATTERNS.filter((p) => p.protocol === 'SSH' && p.algorithms).map((p) => [p.text, p.algorithms!.map(parseSpec)]));
const DH_GROUPS: Record<string, string> = { '1': 'DH:768', '2': 'DH:1024', '5': 'DH:1536', '14': 'DH:2048', '15': 'DH:3072', '16': 'DH:4096', '19': 'ECDH:P-256', '20': 'ECDH:P-384', '21': 'ECDH:P-521', '31': 'X25519' };

/** strongSwan/Libreswan proposal tokens ('aes256gcm16-sha384-ecp384', '3des-md5-modp1024') to algorithms. */
export function ipsecAlgorithms(proposal: string): AlgorithmSpec[] {
  const out: AlgorithmSpec[] = [];
  for (const token of proposal.toLowerCase().split(/[-,;!\s]+/).filter(Boolean)) {
    const aes = /^aes(128|192|256)?(gcm|ccm|ctr|cbc)?/.exec(token);
    const modp = /^modp(\d+)$/.exec(token);
    const ecp = /^ecp(256|384|521)$/.exec(token);
    if (aes && token.startsWith('aes')) out.push({ algorithm: 'AES', parameter: aes[1] ?? '128', mode: aes[2]?.toUpperCase() ?? 'CBC' });
    else if (token === '3des') out.push({ algorithm: '3DES', mode: 'CBC' });
    else if (token === 'des') out.push({ algorithm: 'DES', mode: 'CBC' });
    else if (token.startsWith('chacha20poly1305')) out.push({ algorithm: 'ChaCha20-Poly1305' });
    else if (token === 'md5' || token === 'hmac_md5') out.push({ algorithm: 'MD5' });
    else if (token === 'sha1' || token === 'sha' || token === 'hmac_sha1') out.push({ algorithm: 'SHA-1' });
    else if (/^sha(2_)?256$/.test(token)) out.push({ algorithm: 'SHA-256' });
    else if (/^sha(2_)?384$/.test(token)) out.push({ algorithm: 'SHA-384' });
    else if (/^sha(2_)?512$/.test(token)) out.push({ algorithm: 'SHA-512' });
    else if (modp) out.push({ algorithm: 'DH', parameter: modp[1] });
    else if (ecp) out.push({ algorithm: 'ECDH', parameter: `P-${ecp[1]}` });
    else if (token === 'curve25519' || token === 'x25519') out.push({ algorithm: 'X25519' });
    else if (/^(mlkem|ke1_mlkem)(512|768|1024)$/.test(token)) out.push({ algorithm: 'ML-KEM', parameter: /(512|768|1024)/.exec(token)![1] });
  }
  return out;
}

const hit = (protocol: ProtocolName): ProtocolHit => ({ protocol, method: 'config', versions: [], cipherSuites: [], names: [], algorithms: [] });
const unquote = (s: string): string => s.trim().replace(/^["']|["';]+$/g, '').trim();

function sshd(text: string): ProtocolHit {
  const out = hit('SSH');
  out.settings = {};
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z]+)\s+(.+?)\s*$/.exec(line);
    if (!m || line.trim().startsWith('#')) continue;
    const [key, value] = [m[1]!, m[2]!];
    if (/^(Ciphers|MACs|KexAlgorithms|HostKeyAlgorithms|PubkeyAcceptedAlgorithms|PubkeyAcceptedKeyTypes)$/i.test(key)) {
      // '-list' removes names from the defaults: they are not enabled ('+' appends, '^' puts first).
      if (value.startsWith('-')) continue;
      for (const name of value.replace(/^[+^]/, '').split(',')) {
        out.names.push(name);
        out.algorithms.push(...(SSH_NAMES.get(name) ?? []).map((spec) => ({ ...spec, via: `${key} ${name}` })));
      }
    } else if (/^HostKey$/i.test(key)) {
      const type = /ssh_host_(rsa|dsa|ecdsa|ed25519)_key/.exec(value)?.[1];
      if (type) out.algorithms.push({ ...parseSpec({ rsa: 'RSA', dsa: 'DSA:1024', ecdsa: 'ECDSA', ed25519: 'Ed25519' }[type]!), via: `HostKey ${value}` });
      out.settings[`HostKey ${basename(value)}`] = value;
    } else if (/^(Protocol|PermitRootLogin|PasswordAuthentication)$/i.test(key)) out.settings[key] = value;
  }
  if (out.settings.Protocol && /1/.test(out.settings.Protocol)) out.versions.push('SSH-1');
  return out;
}

function wireguard(text: string, path: string): ConfigDetections {
  const out = hit('WireGuard');
  out.algorithms.push(...['X25519', 'ChaCha20-Poly1305', 'BLAKE2s'].map(parseSpec));
  const materials: Material[] = [];
  const re = /(?:PrivateKey\s*=\s*|option\s+private_key\s+)['"]?([A-Za-z0-9+/]{43}=)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const keyId = sha256Hex(Buffer.from(m[1]!, 'base64'));
    materials.push({ kind: 'private-key', format: 'WireGuard', encoding: 'X25519', offset: Buffer.byteLength(text.slice(0, m.index)), length: m[0].length, key: { keyType: 'X25519', algorithm: 'X25519', bits: 256, curve: 'Curve25519' }, keyId, encrypted: false, context: { file: basename(path) } });
  }
  return { protocols: [out], materials };
}

/** Parses a configuration file selected by CONFIG_GLOBS; empty when it holds nothing relevant. */
export function parseConfig(path: string, text: string): ConfigDetections {
  const name = basename(path);
  if (name.startsWith('sshd_config') || path.includes('sshd_config.d')) return { protocols: [sshd(text)], materials: [] };
  if (path.endsWith('/etc/config/dropbear')) {
    const out = hit('SSH');
    out.settings = { server: 'dropbear' };
    return { protocols: [out], materials: [] };
  }
  if (/\[Interface\]/.test(text) || (path.endsWith('/etc/config/network') && /proto\s+'?wireguard/.test(text))) return wireguard(text, path);
  if (name === 'ipsec.conf' || name === 'swanctl.conf' || path.includes('swanctl/')) {
    const out = hit('IKE');
    for (const m of text.matchAll(/^\s*(ike|esp|ah|proposals|esp_proposals)\s*=\s*(.+)$/gm)) {
      out.names.push(`${m[1]}=${m[2]!.trim()}`);
      out.algorithms.push(...ipsecAlgorithms(m[2]!).map((spec) => ({ ...spec, via: `${m[1]}=${m[2]!.trim()}` })));
    }
    return out.names.length ? { protocols: [out], materials: [] } : { protocols: [], materials: [] };
  }
  if (name === 'racoon.conf') {
    const out = hit('IKE');
    for (const m of text.matchAll(/^\s*(encryption_algorithm|hash_algorithm|dh_group)\s+([^;]+);/gm)) {
      const via = `${m[1]} ${m[2]!.trim()}`;
      out.names.push(via);
      if (m[1] === 'dh_group') {
        const group = DH_GROUPS[m[2]!.trim()] ?? { modp768: 'DH:768', modp1024: 'DH:1024', modp1536: 'DH:1536', modp2048: 'DH:2048' }[m[2]!.trim()];
        if (group) out.algorithms.push({ ...parseSpec(group), via });
      } else out.algorithms.push(...ipsecAlgorithms(m[2]!.replace(/\s/g, '')).map((spec) => ({ ...spec, via })));
    }
    return { protocols: out.names.length ? [out] : [], materials: [] };
  }
  if (name === 'opkg.conf') {
    if (!/^\s*option\s+check_signature/m.test(text)) return { protocols: [], materials: [] };
    const out = hit('signed-update');
    out.names.push('opkg usign (Ed25519) package signatures');
    out.algorithms.push(parseSpec('Ed25519'));
    out.settings = { check_signature: 'enabled' };
    return { protocols: [out], materials: [] };
  }
  return { protocols: tlsConfig(text), materials: [] };
}

function tlsConfig(text: string): ProtocolHit[] {
  const out = hit('TLS');
  for (const m of text.matchAll(/^\s*(?:ssl_protocols|SSLProtocol|MinProtocol|sslVersion|ssl\.openssl\.ssl-conf-cmd\s*=\s*\(\s*"MinProtocol"\s*=>)\s*[= ]?\s*(.+)$/gim)) {
    for (const v of unquote(m[1]!).split(/[\s,]+/)) {
      const version = /^[+]?(SSLv2|SSLv3|TLSv1(?:\.[0-3])?)$/.exec(v)?.[1];
      if (version) out.versions.push(version.replace('TLSv1', 'TLS 1').replace(/^TLS 1$/, 'TLS 1.0').replace('SSLv', 'SSL ').replace(/SSL (\d)$/, 'SSL $1.0'));
    }
  }
  for (const m of text.matchAll(/^\s*(?:ssl_ciphers|SSLCipherSuite|CipherString|ssl\.cipher-list|ciphers)\s*[= ]\s*(.+)$/gim)) {
    for (const suite of unquote(m[1]!).split(/[:\s,]+/)) {
      // OpenSSL cipher strings: '!X' and '-X' remove X, so they enable nothing.
      if (!/^[A-Z0-9_-]+$/.test(suite) || !/(AES|DES|RC4|CHACHA|CAMELLIA)/.test(suite) || suite.startsWith('-')) continue;
      out.cipherSuites.push(suite);
      out.algorithms.push(...suiteAlgorithms(suite).map((spec) => ({ ...spec, via: suite })));
    }
  }
  return out.versions.length || out.cipherSuites.length ? [out] : [];
}
