// ChaCha20 / Salsa20: the "expand 32-byte k" and "expand 16-byte k" constants (as text and as words), and
// Poly1305: the r-clamping mask and the prime 2^130 - 5 as stored by vectorised implementations.
import { byteTable, wordTable, type ConstantSignature } from './types.js';

const sigma = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574];
const chacha = { family: 'chacha', algorithm: 'ChaCha20', kind: 'crypto' as const };
const poly = { family: 'poly1305', algorithm: 'Poly1305', kind: 'crypto' as const };

export const chachaSalsa: ConstantSignature[] = [
  byteTable({ ...chacha, id: 'chacha-sigma', what: '"expand 32-byte k" (ChaCha20 or Salsa20)' }, 'expand 32-byte k'),
  byteTable({ ...chacha, id: 'chacha-tau', what: '"expand 16-byte k" (ChaCha or Salsa20, 128-bit key)' }, 'expand 16-byte k'),
  // Little-endian words equal the text; big-endian targets store the byte-swapped form.
  wordTable({ ...chacha, id: 'chacha-sigma-w', what: 'sigma words (ChaCha20 or Salsa20)' }, sigma, 4)[1]!,
];

export const poly1305: ConstantSignature[] = [
  byteTable({ ...poly, id: 'poly1305-clamp', what: 'r clamping mask' }, [0xff, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f]),
  byteTable({ ...poly, id: 'poly1305-prime', what: 'prime 2^130-5' }, [0xfb, ...Array<number>(15).fill(0xff), 0x03]),
];
