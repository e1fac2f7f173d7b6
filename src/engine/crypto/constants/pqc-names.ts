// Post-quantum schemes without distinctive tables (SLH-DSA/SPHINCS+ is built on SHA-2/SHAKE, LMS/XMSS on
// SHA-256/SHAKE) and parameter-set names of ML-KEM/ML-DSA, recognised by the identifiers their libraries and
// configurations carry. Each name maps to the catalog algorithm with its parameter set.
import { byteTable, type ConstantSignature } from './types.js';

const names: Array<[string, string, string[]]> = [
  ['mlkem', 'ML-KEM', ['ML-KEM-512', 'ML-KEM-768', 'ML-KEM-1024', 'mlkem512', 'mlkem768', 'mlkem1024', 'X25519MLKEM768', 'SecP256r1MLKEM768', 'kyber512', 'kyber768', 'kyber1024', 'Kyber512', 'Kyber768', 'Kyber1024']],
  ['mldsa', 'ML-DSA', ['ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87', 'mldsa44', 'mldsa65', 'mldsa87', 'dilithium2', 'dilithium3', 'dilithium5', 'Dilithium2', 'Dilithium3', 'Dilithium5']],
  ['slhdsa', 'SLH-DSA', ['SLH-DSA-SHA2-', 'SLH-DSA-SHAKE-', 'sphincssha2', 'sphincsshake', 'SPHINCS+-', 'sphincs_plus', 'crypto_sign_sphincs']],
  ['hbs', 'LMS', ['LMS_SHA256_M32_H', 'LMS_SHA256_M24_H', 'LMOTS_SHA256_N32_W', 'hss_generate_private_key', 'hss_validate_signature', 'lms_verify_signature']],
  ['hbs', 'XMSS', ['XMSS-SHA2_', 'XMSSMT-SHA2_', 'XMSS-SHAKE_', 'xmss_sign_open', 'xmssmt_sign_open', 'xmss_core_sign']],
];

/** Kebab-case id part; a leading capital is kept apart ('Kyber512' → 'cap-kyber512') so case variants stay unique. */
const slug = (name: string): string =>
  (/^[A-Z][a-z]/.test(name) ? 'cap-' : '') + name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/-$/, '');

/** The parameter set a name spells: ML-KEM-768 → '768', dilithium3 → '65' (Dilithium levels 2/3/5 are ML-DSA-44/65/87). */
function parameterOf(algorithm: string, name: string): string | undefined {
  if (algorithm === 'ML-KEM') return /(512|768|1024)/.exec(name)?.[1];
  if (algorithm === 'ML-DSA') {
    const m = /(44|65|87)$|ilithium([235])$/.exec(name);
    return m?.[1] ?? (m?.[2] ? { '2': '44', '3': '65', '5': '87' }[m[2]] : undefined);
  }
  return undefined;
}

export const pqcNames: ConstantSignature[] = names.flatMap(([family, algorithm, list]) =>
  list.map((name) =>
    byteTable({ id: `${family}-name-${slug(name)}`, family, algorithm, parameter: parameterOf(algorithm, name), what: `name "${name}"`, kind: 'crypto', isName: true }, name),
  ),
);
