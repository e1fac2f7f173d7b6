// The serious cases among the crypto assets become knownVulnerability findings with a CWE: private keys in the
// image (CWE-321), weak key sizes (CWE-326), certificates signed with MD5/SHA-1 (CWE-328), broken ciphers in
// use (CWE-327: enabled by a configuration or used by a key, never merely present in code), expired certificates
// used for trust (CWE-324). Fingerprints hash the rule and the key, certificate or file, never offsets, so the
// same problem in the next image is the same finding.
import { cweFinding, type CweFindingFields } from '../cwe-finding.js';
import { assess } from './pqc.js';
import { publishedKey, type PublishedKey } from './published-keys.js';
import type { CryptoAsset, EngineFinding, Evidence } from '../types.js';

const TRUST_PATH = /(\/etc\/ssl\/|\/certs?\/|ca-?bundle|ca-certificates|cacert|trust)/i;

/** A CWE finding whose occurrences are the crypto evidence (path, offset, how it was found). */
function finding(rule: string, where: string, evidence: Evidence[], fields: Omit<CweFindingFields, 'occurrences'>): EngineFinding {
  return cweFinding(rule, where, {
    ...fields,
    occurrences: evidence.map((e) => ({ path: e.path, offset: e.offset, evidence: [e.method, e.match].filter(Boolean).join(': ') })),
  });
}

const weakKey = (type: string | undefined, bits: number | undefined): boolean =>
  bits !== undefined && (((type === 'RSA' || type === 'DSA' || type === 'DH') && bits < 2048) || (type === 'EC' && bits < 224));

type KeyDetails = { keyType?: string; bits?: number; keyId?: string; encrypted?: boolean; weakPassword?: string; format?: string; embeddedIn?: string };
const keyWhere = (asset: CryptoAsset): string => (asset.details as KeyDetails).keyId ?? asset.paths.slice().sort()[0]!;

function privateKeyFinding(asset: CryptoAsset): EngineFinding {
  const d = asset.details as KeyDetails;
  const published = publishedKey(d.keyId);
  if (published) return publishedKeyFinding(asset, published);
  const protectedWell = d.encrypted && d.weakPassword === undefined;
  return finding('private-key-in-image', keyWhere(asset), asset.evidence, {
    name: `Private key in the image: ${asset.name}${d.embeddedIn ? ` compiled into an ${d.embeddedIn}` : ''}`,
    // A key compiled into a program is often a test or sample key (e.g. `openssl speed`): still shipped, less often live.
    severity: protectedWell || d.embeddedIn ? 'medium' : 'high',
    cwe: 'CWE-321',
    description: `A ${asset.name} is shipped in the firmware image${d.encrypted ? (d.weakPassword !== undefined ? `, protected only by ${d.weakPassword === '' ? 'an empty password' : `the common password "${d.weakPassword}"`}` : ', encrypted') : ', unencrypted'}. Every device running this image shares it: anyone who extracts the image can impersonate the device or decrypt its traffic.`,
    recommendedAction: 'Remove the key from the image; generate a unique key per device at first boot or provisioning, and revoke the published one.',
  });
}

/**
 * A test key published in the source of the software that carries it: the finding says so, at low severity (it is
 * no device's secret; only a service that used it for anything but its tests would be exposed).
 */
function publishedKeyFinding(asset: CryptoAsset, published: PublishedKey): EngineFinding {
  return finding('private-key-in-image', keyWhere(asset), asset.evidence, {
    name: `Published test private key in the image: ${asset.name}, from ${published.source}`,
    severity: 'low',
    cwe: 'CWE-321',
    description: `A ${asset.name} is shipped in the firmware image. It is a published test key, from ${published.source}, used by ${published.use}: anyone has it, so it is no secret of this device, and nothing may rely on it.`,
    recommendedAction: 'Nothing for the tests that use it. Check that no service of the image uses this key for anything else (its private half is public); the tests can be left out of a production build.',
  });
}

/**
 * A private key and its public key (ssh_host_rsa_key and .pub) share a key id: one weak key, so one finding
 * with the evidence of both (the private key, listed first, names it).
 */
function keyFindings(keys: CryptoAsset[]): EngineFinding[] {
  const out = keys.filter((k) => k.assetType === 'private-key').map(privateKeyFinding);
  const weak = new Map<string, { asset: CryptoAsset; evidence: Evidence[] }>();
  for (const asset of keys) {
    const d = asset.details as KeyDetails;
    // a published test key's size protects nothing either way: its finding says what it is
    if (!weakKey(d.keyType, d.bits) || publishedKey(d.keyId)) continue;
    const entry = weak.get(keyWhere(asset));
    if (entry) entry.evidence.push(...asset.evidence);
    else weak.set(keyWhere(asset), { asset, evidence: [...asset.evidence] });
  }
  for (const [where, { asset, evidence }] of weak) {
    const d = asset.details as KeyDetails;
    out.push(weakKeyFinding(asset, where, d.keyType!, d.bits!, evidence));
  }
  return out;
}

function weakKeyFinding(asset: CryptoAsset, where: string, type: string, bits: number, evidence = asset.evidence): EngineFinding {
  return finding('weak-key-size', where, evidence, {
    name: `Weak ${type} key size (${bits} bits): ${asset.name}`,
    severity: bits < 1024 || (type === 'EC' && bits < 192) ? 'high' : 'medium',
    cwe: 'CWE-326',
    description: `${asset.name} uses a ${bits}-bit ${type} key, below the 112-bit security strength NIST has required since 2014 (RSA/DSA/DH ≥ 2048 bits, EC ≥ 224 bits).`,
    recommendedAction: type === 'EC' ? 'Use P-256 or stronger now; plan ML-DSA/ML-KEM for post-quantum migration.' : 'Use at least RSA-3072 now; plan ML-DSA (signatures) or ML-KEM (key establishment) for post-quantum migration.',
  });
}

function certificateFindings(asset: CryptoAsset, now: Date): EngineFinding[] {
  const d = asset.details as { sha256: string; subject: string; notAfter: string; expired: boolean; isCA: boolean; signatureHash?: string; signatureAlgorithm: string; selfSigned: boolean; key: { keyType: string; bits?: number }; contexts: Array<Record<string, string>> };
  const out: EngineFinding[] = [];
  const efi = d.contexts.map((c) => c.efiVariable).filter((v): v is string => !!v && v !== 'dbx');
  // A certificate shipped with its private key (PKCS#12) is an identity, not a trust anchor.
  const identity = d.contexts.every((c) => c.container === 'PKCS#12');
  const trusted = efi.length > 0 || (!identity && (d.isCA || asset.paths.some((p) => TRUST_PATH.test(p))));
  if (d.expired && trusted) {
    const where = efi.length ? `UEFI ${[...new Set(efi)].join('/')}` : d.isCA ? 'a CA certificate' : 'a trust store';
    out.push(finding('expired-certificate-used-for-trust', d.sha256, asset.evidence, {
      name: `Expired certificate used for trust: ${asset.name}`,
      severity: 'medium',
      cwe: 'CWE-324',
      description: `The certificate "${d.subject}" expired on ${d.notAfter.slice(0, 10)} (checked ${now.toISOString().slice(0, 10)}) and is still installed as ${where}. Verifiers that ignore validity keep trusting a key whose lifetime is over; verifiers that check it break.`,
      recommendedAction: efi.length ? 'Enroll the successor certificates (e.g. Microsoft UEFI CA 2023 / KEK 2K CA 2023) in the Secure Boot variables and plan revocation of the expired ones.' : 'Replace the certificate with a currently valid one and remove the expired one from the trust store.',
    }));
  }
  if (d.signatureHash === 'MD5' || d.signatureHash === 'SHA-1') {
    out.push(finding('weak-signature-algorithm', d.sha256, asset.evidence, {
      name: `Certificate signed with ${d.signatureAlgorithm}: ${asset.name}`,
      severity: d.signatureHash === 'MD5' ? 'high' : 'medium',
      cwe: 'CWE-328',
      description: `The certificate "${d.subject}" is signed with ${d.signatureAlgorithm}; ${d.signatureHash} collisions are practical, so signatures over it can be forged.`,
      recommendedAction: 'Re-issue the certificate with SHA-256 or stronger (SHA-384 for long-lived roots).',
    }));
  }
  if (weakKey(d.key.keyType, d.key.bits)) out.push(weakKeyFinding(asset, d.sha256, d.key.keyType, d.key.bits!));
  return out;
}

/** Ciphers broken in practice; why, and since when, comes from the PQC table, so the finding and the PQC report agree. */
const BROKEN_CIPHERS = new Set(['DES', '3DES', 'RC4']);

/**
 * Evidence that a broken algorithm protects something, not merely that code for it exists: a protocol or cipher
 * configuration that enables it ('config': sshd_config Ciphers, IKE proposals, TLS cipher lists) or a key of
 * that algorithm ('key', 'certificate-key'). Constant tables, library symbols and cipher-suite names compiled
 * into a binary only show capability (every OpenSSL carries DES): they stay crypto assets, not findings.
 */
const PROTECTION_METHODS = new Set(['config', 'key', 'certificate-key']);

/**
 * One finding per broken algorithm and file that enables it. The algorithm's assets (DES, DES-CBC, DES-ECB, ...)
 * are taken together: the fingerprint is (algorithm, file), so one finding per asset would repeat it.
 */
function algorithmFindings(assets: CryptoAsset[]): EngineFinding[] {
  const byRuleAndPath = new Map<string, { algorithm: string; path: string; evidence: Evidence[] }>();
  for (const asset of assets) {
    const { algorithm } = asset.details as { algorithm: string };
    if (!BROKEN_CIPHERS.has(algorithm)) continue;
    for (const e of asset.evidence) {
      if (!PROTECTION_METHODS.has(e.method)) continue;
      const key = `${algorithm}\0${e.path}`;
      const entry = byRuleAndPath.get(key) ?? { algorithm, path: e.path, evidence: [] };
      entry.evidence.push(e);
      byRuleAndPath.set(key, entry);
    }
  }
  return [...byRuleAndPath.values()].map(({ algorithm, path, evidence }) => {
    const how = evidence.some((e) => e.method === 'config') ? 'enabled by the configuration' : 'used by a key';
    const pqc = assess(algorithm)!;
    return finding(`broken-algorithm-${algorithm.toLowerCase()}`, path, evidence, {
      name: `Broken algorithm ${algorithm} ${how === 'enabled by the configuration' ? 'enabled' : 'used by a key'} in ${path.split('/').pop()}`,
      severity: 'medium',
      cwe: 'CWE-327',
      description: `${pqc.reason}. It is ${how} in ${path} (${[...new Set(evidence.map((e) => e.match).filter(Boolean))].join('; ')}).`,
      recommendedAction: `Remove the algorithm from the configuration (and the build where possible); use ${pqc.recommendations.map((r) => r.parameter).join(' or ')}.`,
    });
  });
}

export function cryptoFindings(assets: CryptoAsset[], now: Date): EngineFinding[] {
  return [
    ...keyFindings(assets.filter((a) => a.assetType === 'private-key' || a.assetType === 'public-key')),
    ...assets.filter((a) => a.assetType === 'certificate').flatMap((a) => certificateFindings(a, now)),
    ...algorithmFindings(assets.filter((a) => a.assetType === 'algorithm')),
  ];
}
