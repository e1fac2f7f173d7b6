// The algorithm catalog: what each detected algorithm is (CycloneDX primitive, function), how strong it is
// classically and against a quantum adversary, and whether NIST approves it. Names are the catalog keys that
// every detector reports; a parameter (key size, curve, parameter set) refines the strength.

export type Primitive = 'block-cipher' | 'stream-cipher' | 'hash' | 'mac' | 'signature' | 'key-agree' | 'kem' | 'pke' | 'kdf' | 'drbg' | 'ae' | 'xof' | 'other';

/** quantum-vulnerable: broken by Shor; weakened: Grover halves the margin; broken: already broken classically.
 * Which class each algorithm is in is decided by the one PQC table (pqc-table.ts). */
export type QuantumClass = 'quantum-vulnerable' | 'weakened' | 'quantum-resistant' | 'broken';

export type Usage = 'signature' | 'key-establishment' | 'symmetric' | 'hash' | 'mac' | 'other';

export interface AlgorithmInfo {
  name: string;
  primitive: Primitive;
  usage: Usage;
  /** Public-key algorithm whose security rests on factoring or discrete logarithms. */
  shor?: boolean;
  /** Approved in a NIST FIPS or SP (and so covered by NIST IR 8547). */
  nistApproved: boolean;
  /** Classical security strength in bits per parameter ('' = parameter unknown: the weakest common one). */
  strength: Record<string, number>;
  /** NIST PQC security category (1..5) per parameter, for quantum-resistant and symmetric algorithms. */
  category?: Record<string, number>;
  /** Classically broken whatever the parameter. */
  broken?: boolean;
  oid?: string;
}

const rsaLike = (name: string, usage: Usage, oid?: string): AlgorithmInfo => ({
  name, primitive: name === 'RSA' ? 'pke' : usage === 'signature' ? 'signature' : 'key-agree', usage, shor: true, nistApproved: true, oid,
  strength: { '': 112, '512': 50, '768': 60, '1024': 80, '1536': 96, '2048': 112, '3072': 128, '4096': 152, '7680': 192, '8192': 200, '15360': 256 },
});
const curveStrength = { '': 128, 'P-192': 96, 'P-224': 112, 'P-256': 128, 'P-384': 192, 'P-521': 256, secp256k1: 128, brainpoolP256r1: 128, brainpoolP384r1: 192, brainpoolP512r1: 256, Curve25519: 128, Curve448: 224 };
const sym = (name: string, primitive: Primitive, strength: Record<string, number>, nistApproved: boolean, extra: Partial<AlgorithmInfo> = {}): AlgorithmInfo => ({
  name, primitive, usage: primitive === 'hash' || primitive === 'xof' ? 'hash' : primitive === 'mac' ? 'mac' : 'symmetric', nistApproved, strength, ...extra,
});
const aesCategory = { '': 1, '128': 1, '192': 3, '256': 5 };

const LIST: AlgorithmInfo[] = [
  sym('AES', 'block-cipher', { '': 128, '128': 128, '192': 192, '256': 256 }, true, { category: aesCategory, oid: '2.16.840.1.101.3.4.1' }),
  sym('DES', 'block-cipher', { '': 56 }, false, { broken: true, oid: '1.3.14.3.2.7' }),
  sym('3DES', 'block-cipher', { '': 112 }, true, { broken: true, oid: '1.2.840.113549.3.7' }),
  // A 64-bit block, like 3DES: birthday-bound plaintext recovery in long sessions (Sweet32, CVE-2016-6329).
  sym('Blowfish', 'block-cipher', { '': 128 }, false, { broken: true }),
  sym('Twofish', 'block-cipher', { '': 128, '128': 128, '192': 192, '256': 256 }, false, { category: aesCategory }),
  sym('Camellia', 'block-cipher', { '': 128, '128': 128, '192': 192, '256': 256 }, false, { category: aesCategory }),
  sym('RC2', 'block-cipher', { '': 40 }, false, { broken: true }),
  sym('RC4', 'stream-cipher', { '': 0 }, false, { broken: true }),
  sym('ChaCha20', 'stream-cipher', { '': 256 }, false, { category: { '': 5 } }),
  sym('ChaCha20-Poly1305', 'ae', { '': 256 }, false, { category: { '': 5 } }),
  sym('Salsa20', 'stream-cipher', { '': 256 }, false, { category: { '': 5 } }),
  sym('Poly1305', 'mac', { '': 128 }, false, { category: { '': 1 } }),
  sym('MD4', 'hash', { '': 0 }, false, { broken: true }),
  sym('MD5', 'hash', { '': 18 }, false, { broken: true, oid: '1.2.840.113549.2.5' }),
  sym('SHA-1', 'hash', { '': 63 }, true, { broken: true, oid: '1.3.14.3.2.26' }),
  sym('RIPEMD-160', 'hash', { '': 80 }, false),
  sym('SHA-224', 'hash', { '': 112 }, true, { category: { '': 1 } }),
  sym('SHA-256', 'hash', { '': 128 }, true, { category: { '': 2 }, oid: '2.16.840.1.101.3.4.2.1' }),
  sym('SHA-384', 'hash', { '': 192 }, true, { category: { '': 4 }, oid: '2.16.840.1.101.3.4.2.2' }),
  sym('SHA-512', 'hash', { '': 256 }, true, { category: { '': 5 }, oid: '2.16.840.1.101.3.4.2.3' }),
  sym('SHA-3', 'hash', { '': 128, '224': 112, '256': 128, '384': 192, '512': 256 }, true, { category: { '': 2, '224': 1, '256': 2, '384': 4, '512': 5 } }),
  sym('SHAKE', 'xof', { '': 128, '128': 128, '256': 256 }, true, { category: { '': 2, '128': 2, '256': 5 } }),
  sym('BLAKE2s', 'hash', { '': 128 }, false, { category: { '': 2 } }),
  sym('BLAKE2b', 'hash', { '': 256 }, false, { category: { '': 5 } }),
  sym('HMAC', 'mac', { '': 128 }, true, { category: { '': 2 } }),
  sym('CMAC', 'mac', { '': 128 }, true, { category: { '': 1 } }),
  // KDFs and DRBGs are as strong as the hash or cipher beneath them: 128 bits, category 1, when it is unknown.
  { name: 'PBKDF2', primitive: 'kdf', usage: 'other', nistApproved: true, strength: { '': 128 }, category: { '': 1 } },
  { name: 'HKDF', primitive: 'kdf', usage: 'other', nistApproved: true, strength: { '': 128 }, category: { '': 1 } },
  { name: 'Argon2', primitive: 'kdf', usage: 'other', nistApproved: false, strength: { '': 128 }, category: { '': 1 } },
  { name: 'DRBG', primitive: 'drbg', usage: 'other', nistApproved: true, strength: { '': 128 }, category: { '': 1 } },
  rsaLike('RSA', 'signature', '1.2.840.113549.1.1.1'),
  rsaLike('DSA', 'signature', '1.2.840.10040.4.1'),
  rsaLike('DH', 'key-establishment', '1.2.840.113549.1.3.1'),
  { name: 'ECDSA', primitive: 'signature', usage: 'signature', shor: true, nistApproved: true, strength: curveStrength, oid: '1.2.840.10045.2.1' },
  { name: 'ECDH', primitive: 'key-agree', usage: 'key-establishment', shor: true, nistApproved: true, strength: curveStrength },
  { name: 'ECC', primitive: 'other', usage: 'signature', shor: true, nistApproved: true, strength: curveStrength },
  { name: 'Ed25519', primitive: 'signature', usage: 'signature', shor: true, nistApproved: true, strength: { '': 128 }, oid: '1.3.101.112' },
  { name: 'Ed448', primitive: 'signature', usage: 'signature', shor: true, nistApproved: true, strength: { '': 224 }, oid: '1.3.101.113' },
  { name: 'X25519', primitive: 'key-agree', usage: 'key-establishment', shor: true, nistApproved: true, strength: { '': 128 }, oid: '1.3.101.110' },
  { name: 'X448', primitive: 'key-agree', usage: 'key-establishment', shor: true, nistApproved: true, strength: { '': 224 }, oid: '1.3.101.111' },
  { name: 'Curve25519', primitive: 'other', usage: 'key-establishment', shor: true, nistApproved: true, strength: { '': 128 } },
  { name: 'secp256k1', primitive: 'other', usage: 'signature', shor: true, nistApproved: false, strength: { '': 128 } },
  { name: 'ML-KEM', primitive: 'kem', usage: 'key-establishment', nistApproved: true, strength: { '': 128, '512': 128, '768': 192, '1024': 256 }, category: { '': 1, '512': 1, '768': 3, '1024': 5 }, oid: '2.16.840.1.101.3.4.4' },
  { name: 'ML-DSA', primitive: 'signature', usage: 'signature', nistApproved: true, strength: { '': 128, '44': 128, '65': 192, '87': 256 }, category: { '': 2, '44': 2, '65': 3, '87': 5 }, oid: '2.16.840.1.101.3.4.3' },
  { name: 'SLH-DSA', primitive: 'signature', usage: 'signature', nistApproved: true, strength: { '': 128, '128': 128, '192': 192, '256': 256 }, category: { '': 1, '128': 1, '192': 3, '256': 5 }, oid: '2.16.840.1.101.3.4.3' },
  { name: 'LMS', primitive: 'signature', usage: 'signature', nistApproved: true, strength: { '': 256, '192': 192, '256': 256 }, category: { '': 5, '192': 3, '256': 5 } },
  { name: 'XMSS', primitive: 'signature', usage: 'signature', nistApproved: true, strength: { '': 256, '192': 192, '256': 256 }, category: { '': 5, '192': 3, '256': 5 } },
];

export const ALGORITHMS: ReadonlyMap<string, AlgorithmInfo> = new Map(LIST.map((a) => [a.name, a]));

export function algorithmInfo(name: string): AlgorithmInfo | undefined {
  return ALGORITHMS.get(name);
}

/** Classical security strength of an algorithm with a parameter (falls back to the nearest smaller key size). */
export function classicalStrength(info: AlgorithmInfo, parameter?: string): number {
  if (parameter !== undefined && info.strength[parameter] !== undefined) return info.strength[parameter]!;
  const bits = parameter && /^\d+$/.test(parameter) ? Number(parameter) : undefined;
  if (bits !== undefined && info.shor && (info.name === 'RSA' || info.name === 'DSA' || info.name === 'DH')) {
    const sizes = Object.keys(info.strength).filter((k) => /^\d+$/.test(k)).map(Number).sort((a, b) => a - b);
    const below = sizes.filter((s) => s <= bits).pop();
    return below ? info.strength[String(below)]! : 0;
  }
  return info.strength[''] ?? 0;
}

/** NIST quantum security level (0 = broken by a quantum computer; 1..5 = PQC category). */
export function nistQuantumLevel(info: AlgorithmInfo, parameter?: string): number {
  if (info.shor || info.broken) return 0;
  return info.category?.[parameter ?? ''] ?? info.category?.[''] ?? 0;
}
