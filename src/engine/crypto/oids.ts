// Object identifiers the crypto analysis names: signature, public-key, curve and encryption algorithms.

export interface OidInfo {
  name: string;
  /** Catalog algorithm (pqc.ts) the OID uses, e.g. 'RSA', 'ECDSA', 'SHA-1'. */
  algorithm?: string;
  hash?: string;
}

export const OIDS: Record<string, OidInfo> = {
  // Signature algorithms.
  '1.2.840.113549.1.1.4': { name: 'md5WithRSAEncryption', algorithm: 'RSA', hash: 'MD5' },
  '1.2.840.113549.1.1.5': { name: 'sha1WithRSAEncryption', algorithm: 'RSA', hash: 'SHA-1' },
  '1.2.840.113549.1.1.11': { name: 'sha256WithRSAEncryption', algorithm: 'RSA', hash: 'SHA-256' },
  '1.2.840.113549.1.1.12': { name: 'sha384WithRSAEncryption', algorithm: 'RSA', hash: 'SHA-384' },
  '1.2.840.113549.1.1.13': { name: 'sha512WithRSAEncryption', algorithm: 'RSA', hash: 'SHA-512' },
  '1.2.840.113549.1.1.14': { name: 'sha224WithRSAEncryption', algorithm: 'RSA', hash: 'SHA-224' },
  '1.2.840.113549.1.1.10': { name: 'RSASSA-PSS', algorithm: 'RSA' },
  '1.2.840.10045.4.1': { name: 'ecdsa-with-SHA1', algorithm: 'ECDSA', hash: 'SHA-1' },
  '1.2.840.10045.4.3.2': { name: 'ecdsa-with-SHA256', algorithm: 'ECDSA', hash: 'SHA-256' },
  '1.2.840.10045.4.3.3': { name: 'ecdsa-with-SHA384', algorithm: 'ECDSA', hash: 'SHA-384' },
  '1.2.840.10045.4.3.4': { name: 'ecdsa-with-SHA512', algorithm: 'ECDSA', hash: 'SHA-512' },
  '1.2.840.10040.4.3': { name: 'dsa-with-sha1', algorithm: 'DSA', hash: 'SHA-1' },
  '2.16.840.1.101.3.4.3.2': { name: 'dsa-with-sha256', algorithm: 'DSA', hash: 'SHA-256' },
  '1.3.101.112': { name: 'Ed25519', algorithm: 'Ed25519' },
  '1.3.101.113': { name: 'Ed448', algorithm: 'Ed448' },
  '2.16.840.1.101.3.4.3.17': { name: 'ML-DSA-44', algorithm: 'ML-DSA' },
  '2.16.840.1.101.3.4.3.18': { name: 'ML-DSA-65', algorithm: 'ML-DSA' },
  '2.16.840.1.101.3.4.3.19': { name: 'ML-DSA-87', algorithm: 'ML-DSA' },
  '1.2.840.113549.1.9.16.3.17': { name: 'HSS-LMS', algorithm: 'LMS' },
  // Public-key algorithms.
  '1.2.840.113549.1.1.1': { name: 'rsaEncryption', algorithm: 'RSA' },
  '1.2.840.10045.2.1': { name: 'id-ecPublicKey', algorithm: 'ECDSA' },
  '1.2.840.10040.4.1': { name: 'dsa', algorithm: 'DSA' },
  '1.2.840.113549.1.3.1': { name: 'dhKeyAgreement', algorithm: 'DH' },
  '1.3.101.110': { name: 'X25519', algorithm: 'X25519' },
  '1.3.101.111': { name: 'X448', algorithm: 'X448' },
  '2.16.840.1.101.3.4.4.1': { name: 'ML-KEM-512', algorithm: 'ML-KEM' },
  '2.16.840.1.101.3.4.4.2': { name: 'ML-KEM-768', algorithm: 'ML-KEM' },
  '2.16.840.1.101.3.4.4.3': { name: 'ML-KEM-1024', algorithm: 'ML-KEM' },
  // Curves.
  '1.2.840.10045.3.1.7': { name: 'P-256' },
  '1.3.132.0.34': { name: 'P-384' },
  '1.3.132.0.35': { name: 'P-521' },
  '1.3.132.0.10': { name: 'secp256k1' },
  '1.2.840.10045.3.1.1': { name: 'P-192' },
  '1.3.132.0.33': { name: 'P-224' },
  '1.3.36.3.3.2.8.1.1.7': { name: 'brainpoolP256r1' },
  '1.3.36.3.3.2.8.1.1.11': { name: 'brainpoolP384r1' },
  '1.3.36.3.3.2.8.1.1.13': { name: 'brainpoolP512r1' },
  // Password-based encryption (encrypted keys, PKCS#12).
  '1.2.840.113549.1.5.13': { name: 'PBES2' },
  '1.2.840.113549.1.12.1.3': { name: 'pbeWithSHAAnd3-KeyTripleDES-CBC', algorithm: '3DES' },
  '1.2.840.113549.1.12.1.6': { name: 'pbeWithSHAAnd40BitRC2-CBC', algorithm: 'RC2' },
  '1.2.840.113549.1.5.3': { name: 'pbeWithMD5AndDES-CBC', algorithm: 'DES' },
};

/** Node's curve names to ours. */
export const NODE_CURVES: Record<string, string> = {
  prime256v1: 'P-256',
  secp384r1: 'P-384',
  secp521r1: 'P-521',
  secp256k1: 'secp256k1',
  prime192v1: 'P-192',
  secp224r1: 'P-224',
  brainpoolP256r1: 'brainpoolP256r1',
  brainpoolP384r1: 'brainpoolP384r1',
  brainpoolP512r1: 'brainpoolP512r1',
};

export const oidName = (oid: string | undefined): string | undefined => (oid ? (OIDS[oid]?.name ?? oid) : undefined);
