// A seeded random generator for tests that explore (fault injection): fixed seed by default so CI repeats the
// developer's run; `<ENV>=random` explores and `<ENV>=<seed>` replays a run.
import { randomInt } from 'node:crypto';

/** The seed from the environment variable `name`: its integer, a fresh one for `random`, `fallback` when unset. */
export function seedFrom(name: string, fallback: number): number {
  const setting = process.env[name];
  const seed = !setting ? fallback : setting === 'random' ? randomInt(1, 2 ** 31) : Number(setting);
  if (!Number.isSafeInteger(seed)) throw new Error(`${name}=${setting}: expected an integer or \`random\``);
  return seed;
}

export interface SeededRandom {
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  below(n: number): number;
  pick<T>(items: readonly T[]): T;
}

/** mulberry32: small, fast, and good enough to choose test actions. */
export function seededRandom(seed: number): SeededRandom {
  let state = seed | 0;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const below = (n: number) => Math.floor(next() * n);
  return { next, below, pick: (items) => items[below(items.length)]! };
}
