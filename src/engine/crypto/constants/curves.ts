// Elliptic-curve domain parameters (SEC 2, FIPS 186-4, RFC 5639, RFC 7748/8032): prime, coefficient b, base
// point x and order, in big-endian and little-endian byte order. Curve25519/Ed25519 constants are derived.
// P-521's prime (0x01 followed by 0xFF bytes) would match erased flash, so it is left out.
import { bigNumber, type ConstantSignature } from './types.js';

const curve = (algorithm: string, id: string, params: Record<string, string>): ConstantSignature[] =>
  Object.entries(params).flatMap(([what, hex]) => bigNumber({ id: `${id}-${what}`, family: 'curves', algorithm, what: `curve ${what}`, kind: 'crypto' }, hex));

const p25519 = (1n << 255n) - 19n;
const pow = (b: bigint, e: bigint, m: bigint): bigint => {
  let r = 1n;
  for (b %= m; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) r = (r * b) % m;
  return r;
};
const inv = (x: bigint): bigint => pow(x, p25519 - 2n, p25519);
const hex = (x: bigint): string => x.toString(16).padStart(64, '0');
const ed25519D = (((p25519 - 121665n) % p25519) * inv(121666n)) % p25519;
const ed25519By = (4n * inv(5n)) % p25519;
const order25519 = (1n << 252n) + 27742317777372353535851937790883648493n;

export const curves: ConstantSignature[] = [
  ...curve('P-256', 'p256', {
    prime: 'ffffffff00000001000000000000000000000000ffffffffffffffffffffffff',
    b: '5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b',
    gx: '6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296',
    order: 'ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551',
  }),
  ...curve('P-384', 'p384', {
    prime: 'fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff',
    b: 'b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aef',
    gx: 'aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7',
    order: 'ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973',
  }),
  ...curve('P-521', 'p521', {
    b: '0051953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00',
    gx: '00c6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d3dbaa14b5e77efe75928fe1dc127a2ffa8de3348b3c1856a429bf97e7e31c2e5bd66',
    order: '01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409',
  }),
  ...curve('secp256k1', 'secp256k1', {
    prime: 'fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f',
    gx: '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
    order: 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141',
  }),
  ...curve('brainpoolP256r1', 'brainpool256', {
    prime: 'a9fb57dba1eea9bc3e660a909d838d726e3bf623d52620282013481d1f6e5377',
    b: '26dc5c6ce94a4b44f330b5d9bbd77cbf958416295cf7e1ce6bccdc18ff8c07b6',
    gx: '8bd2aeb9cb7e57cb2c4b482ffc81b7afb9de27e1e3bd23c23a4453bd9ace3262',
  }),
  ...curve('brainpoolP384r1', 'brainpool384', {
    prime: '8cb91e82a3386d280f5d6f7e50e641df152f7109ed5456b412b1da197fb71123acd3a729901d1a71874700133107ec53',
    gx: '1d1c64f068cf45ffa2a63a81b7c13f6b8847a3e77ef14fe3db7fcafe0cbd10e8e826e03436d646aaef87b2e247d4af1e',
  }),
  ...curve('brainpoolP512r1', 'brainpool512', {
    prime: 'aadd9db8dbe9c48b3fd4e6ae33c9fc07cb308db3b3c9d20ed6639cca703308717d4d9b009bc66842aecda12ae6a380e62881ff2f2d82c68528aa6056583a48f3',
    gx: '81aee4bdd82ed9645a21322e9c4c6a9385ed9f70b5d916c1b43b62eef4d0098eff3b1f78e2d0d48d50d1687b93b97d5f7c6d5047406a5e688b352209bcb9f822',
  }),
  ...curve('Curve25519', 'curve25519', { prime: hex(p25519), order: hex(order25519) }),
  ...curve('Ed25519', 'ed25519', { d: hex(ed25519D), 'base-y': hex(ed25519By) }),
];
