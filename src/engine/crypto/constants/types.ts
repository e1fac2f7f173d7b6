// A constant signature: a byte pattern that only appears where an algorithm's tables or parameters are compiled
// in (an S-box, round constants, a curve prime), tagged with the algorithm it reveals. Tables of words are
// emitted in both byte orders, because firmware runs on little- and big-endian CPUs alike.

export interface ConstantSignature {
  /** Kebab-case id, unique across families, e.g. 'aes-sbox' or 'sha256-k-be'. */
  id: string;
  /** Family id the signature belongs to ('aes', 'sha2', 'crc', ...). */
  family: string;
  /** Catalog name of the algorithm it reveals (pqc.ts), e.g. 'AES', 'SHA-256', 'P-256'. */
  algorithm: string;
  /** What was matched, for evidence: 'S-box', 'round constants', 'curve prime', ... */
  what: string;
  /** Non-cryptographic tables (CRC) are reported apart and never counted as crypto. */
  kind: 'crypto' | 'non-crypto';
  /** Parameter the table pins down (key size of a well-known group), when it does. */
  parameter?: string;
  /** A name (function, cipher or parameter-set string) rather than a table: weaker evidence of use. */
  isName?: boolean;
  bytes: Buffer;
}

type Width = 2 | 4 | 8;

function wordBytes(values: readonly (number | bigint)[], width: Width, endian: 'le' | 'be'): Buffer {
  const out = Buffer.alloc(values.length * width);
  values.forEach((value, i) => {
    const at = i * width;
    if (width === 2) endian === 'le' ? out.writeUInt16LE(Number(value) & 0xffff, at) : out.writeUInt16BE(Number(value) & 0xffff, at);
    else if (width === 4) endian === 'le' ? out.writeUInt32LE(Number(value) >>> 0, at) : out.writeUInt32BE(Number(value) >>> 0, at);
    else {
      const v = BigInt.asUintN(64, BigInt(value));
      endian === 'le' ? out.writeBigUInt64LE(v, at) : out.writeBigUInt64BE(v, at);
    }
  });
  return out;
}

/** One signature per byte order for a table of words (negative values are stored two's-complement). */
export function wordTable(
  base: Omit<ConstantSignature, 'bytes' | 'id'> & { id: string },
  values: readonly (number | bigint)[],
  width: Width,
): ConstantSignature[] {
  return (['le', 'be'] as const).map((endian) => ({ ...base, id: `${base.id}-${endian}`, bytes: wordBytes(values, width, endian) }));
}

/** A byte table or string, stored as is. */
export function byteTable(base: Omit<ConstantSignature, 'bytes'>, values: readonly number[] | string | Buffer): ConstantSignature {
  const bytes = typeof values === 'string' ? Buffer.from(values, 'latin1') : Buffer.from(values as number[]);
  return { ...base, bytes };
}

/** A big number (curve parameter) in big-endian bytes and in the little-endian limb order of many libraries. */
export function bigNumber(base: Omit<ConstantSignature, 'bytes' | 'id'> & { id: string }, hex: string): ConstantSignature[] {
  const be = Buffer.from(hex.length % 2 ? '0' + hex : hex, 'hex');
  const le = Buffer.from(be).reverse();
  return [
    { ...base, id: `${base.id}-be`, bytes: be },
    { ...base, id: `${base.id}-le`, bytes: le },
  ];
}

/** First `n` entries of a table: enough to be unique, short enough to survive partial tables. */
export const head = <T>(values: readonly T[], n: number): T[] => values.slice(0, n);
