// bcrypt ('$2a$', '$2b$', '$2y$') per Provos and Mazières, "A Future-Adaptable Password Scheme" (USENIX 1999):
// the expensive key schedule of Blowfish (EksBlowfish) over the password and salt, then "OrpheanBeholderScryDoubt"
// encrypted 64 times. Blowfish's initial P-array and S-boxes are the hexadecimal digits of pi's fractional part
// (Schneier 1993); they are computed once, on first use, rather than carried as 4 KiB of constants.

const WORDS = 18 + 4 * 256;

/** The first `words` 32-bit words of pi's fractional part, by Machin's formula in fixed point. */
function piWords(words: number): Uint32Array {
  const bits = BigInt(words * 32 + 64);
  const one = 1n << bits;
  const arctanInverse = (x: bigint): bigint => {
    let sum = 0n;
    let term = one / x;
    const x2 = x * x;
    for (let k = 1n, sign = 1n; term !== 0n; k += 2n, sign = -sign, term /= x2) sum += (sign * term) / k;
    return sum;
  };
  const pi = 16n * arctanInverse(5n) - 4n * arctanInverse(239n);
  const fraction = (pi - 3n * one) >> 64n;
  const out = new Uint32Array(words);
  for (let i = 0; i < words; i++) out[i] = Number((fraction >> BigInt((words - 1 - i) * 32)) & 0xffffffffn);
  return out;
}

let initial: Uint32Array | undefined;

class Blowfish {
  readonly p: Uint32Array;
  readonly s: Uint32Array;
  constructor() {
    initial ??= piWords(WORDS);
    this.p = initial.slice(0, 18);
    this.s = initial.slice(18);
  }

  private f(x: number): number {
    const s = this.s;
    return ((((s[x >>> 24]! + s[256 + ((x >>> 16) & 0xff)]!) >>> 0) ^ s[512 + ((x >>> 8) & 0xff)]!) + s[768 + (x & 0xff)]!) >>> 0;
  }

  encrypt(lr: Uint32Array, at: number): void {
    let l = lr[at]!;
    let r = lr[at + 1]!;
    for (let i = 0; i < 16; i += 2) {
      l = (l ^ this.p[i]!) >>> 0;
      r = (r ^ this.f(l)) >>> 0;
      r = (r ^ this.p[i + 1]!) >>> 0;
      l = (l ^ this.f(r)) >>> 0;
    }
    lr[at] = (r ^ this.p[17]!) >>> 0;
    lr[at + 1] = (l ^ this.p[16]!) >>> 0;
  }

  /** ExpandKey(state, salt, key); an empty salt is the all-zero salt of the cost loop. */
  expand(key: Uint8Array, salt?: Uint8Array): void {
    let kp = 0;
    const keyWord = (): number => {
      let w = 0;
      for (let i = 0; i < 4; i++, kp = (kp + 1) % key.length) w = ((w << 8) | key[kp]!) >>> 0;
      return w;
    };
    for (let i = 0; i < 18; i++) this.p[i] = (this.p[i]! ^ keyWord()) >>> 0;
    let sp = 0;
    const saltWord = (): number => {
      if (!salt) return 0;
      let w = 0;
      for (let i = 0; i < 4; i++, sp = (sp + 1) % salt.length) w = ((w << 8) | salt[sp]!) >>> 0;
      return w;
    };
    const lr = new Uint32Array(2);
    const fill = (target: Uint32Array): void => {
      for (let i = 0; i < target.length; i += 2) {
        lr[0] = (lr[0]! ^ saltWord()) >>> 0;
        lr[1] = (lr[1]! ^ saltWord()) >>> 0;
        this.encrypt(lr, 0);
        target[i] = lr[0]!;
        target[i + 1] = lr[1]!;
      }
    };
    fill(this.p);
    fill(this.s);
  }
}

const MAGIC = Buffer.from('OrpheanBeholderScryDoubt', 'latin1');

/** The 23 output bytes of bcrypt for `password` (at most 72 bytes are used), a 16-byte salt and a cost of 4..31. */
export function bcryptRaw(password: string, salt: Uint8Array, cost: number): Uint8Array {
  const key = Buffer.concat([Buffer.from(password, 'utf8'), Buffer.from([0])]).subarray(0, 72);
  const state = new Blowfish();
  state.expand(key, salt);
  for (let i = 0; i < 2 ** cost; i++) {
    state.expand(key);
    state.expand(salt);
  }
  const text = new Uint32Array(6);
  for (let i = 0; i < 6; i++) text[i] = MAGIC.readUInt32BE(i * 4);
  for (let round = 0; round < 64; round++) for (let i = 0; i < 6; i += 2) state.encrypt(text, i);
  const out = Buffer.alloc(24);
  for (let i = 0; i < 6; i++) out.writeUInt32BE(text[i]!, i * 4);
  return out.subarray(0, 23);
}
