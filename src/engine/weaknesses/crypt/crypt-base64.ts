// The base-64 alphabets of crypt(3) hashes: './0-9A-Za-z' for DES, MD5, SHA-256 and SHA-512 crypt (least
// significant 6 bits first), './A-Za-z0-9' for bcrypt (most significant first, like standard base64).
export const CRYPT_ALPHABET = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `count` characters of the 24-bit value b2:b1:b0, least significant 6 bits first (MD5- and SHA-crypt). */
export function encode24(b2: number, b1: number, b0: number, count: number): string {
  let w = (b2 << 16) | (b1 << 8) | b0;
  let out = '';
  for (let i = 0; i < count; i++, w >>>= 6) out += CRYPT_ALPHABET[w & 0x3f];
  return out;
}

/** Encodes `order` (triples of byte indexes, a last pair or single) of `digest` the way MD5- and SHA-crypt do. */
export function encodeDigest(digest: Buffer, order: ReadonlyArray<readonly number[]>): string {
  let out = '';
  for (const group of order) {
    const [a, b, c] = group;
    if (group.length === 3) out += encode24(digest[a!]!, digest[b!]!, digest[c!]!, 4);
    else if (group.length === 2) out += encode24(0, digest[a!]!, digest[b!]!, 3);
    else out += encode24(0, 0, digest[a!]!, 2);
  }
  return out;
}

/** bcrypt's base64 of `data` (no padding). */
export function bcryptEncode(data: Uint8Array): string {
  let out = '';
  for (let i = 0; i < data.length; i += 3) {
    const c1 = data[i]!;
    const c2 = data[i + 1];
    const c3 = data[i + 2];
    out += BCRYPT_ALPHABET[c1 >> 2];
    out += BCRYPT_ALPHABET[((c1 & 3) << 4) | ((c2 ?? 0) >> 4)];
    if (c2 === undefined) break;
    out += BCRYPT_ALPHABET[((c2 & 0x0f) << 2) | ((c3 ?? 0) >> 6)];
    if (c3 === undefined) break;
    out += BCRYPT_ALPHABET[c3 & 0x3f];
  }
  return out;
}

/** Decodes `length` bytes of bcrypt base64; undefined on a character outside the alphabet. */
export function bcryptDecode(text: string, length: number): Uint8Array | undefined {
  const values: number[] = [];
  for (const ch of text) {
    const v = BCRYPT_ALPHABET.indexOf(ch);
    if (v < 0) return undefined;
    values.push(v);
  }
  const out = new Uint8Array(length);
  let bits = 0;
  let acc = 0;
  let n = 0;
  for (const v of values) {
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (n < length) out[n++] = (acc >> bits) & 0xff;
    }
  }
  return n === length ? out : undefined;
}
