// RC4 has no constant tables (its state is the identity permutation, shuffled by the key), so it is recognised
// by the names its implementations and cipher lists carry: key-schedule entry points and cipher-suite names.
import { byteTable, type ConstantSignature } from './types.js';

const names = ['RC4_set_key', 'EVP_rc4', 'wc_Arc4SetKey', 'mbedtls_arc4_setup', 'arcfour128', 'arcfour256', 'RC4-MD5', 'RC4-SHA', '_WITH_RC4_128_', 'nettle_arcfour', 'rc4_setkey'];

export const rc4: ConstantSignature[] = names.map((name) =>
  byteTable({ id: `rc4-${name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}`, family: 'rc4', algorithm: 'RC4', what: `key schedule or cipher name "${name}"`, kind: 'crypto', isName: true }, name),
);
