// Bounded-time fuzzing: mutated corpus images (bit flips, extreme length fields, truncation, duplicated regions)
// go through every registered handler, through the driver and through the whole engine (every analyzer). Asserts
// no crash (only FormatError/LimitError leave a handler; a scan ends with a result whose stages all completed, or
// with the engine's own refusal), no hang (every call finishes within its deadline) and no escape (nothing is
// written outside the output folder, no links are created on disk). Every file of the corpus is a mutation source.
//
// Seed: fixed by default, so that a CI run tests the same inputs as the developer's; FIRMSCOPE_FUZZ_SEED=random
// explores new ones and FIRMSCOPE_FUZZ_SEED=<seed> replays a run (the seed is printed in the suite name, on the
// console and in every failure). Each phase has its own generator seeded from it, so the
// inputs of a phase do not depend on how many iterations the other one managed. FIRMSCOPE_FUZZ_MS sets the time
// of each phase (default 10 s); the whole file stays under about 3 × that plus one deadline.
import { randomInt } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isEngineError } from '../../../src/engine/errors.js';
import { scan } from '../../../src/engine/scan.js';
import { unpack } from '../../../src/engine/unpack/driver.js';
import { FormatError } from '../../../src/engine/format-error.js';
import { LimitError } from '../../../src/engine/unpack/handler.js';
import { Budget, resolveLimits } from '../../../src/engine/unpack/limits.js';
import { FileReader } from '../../../src/engine/unpack/reader.js';
import { handlers } from '../../../src/engine/unpack/registry.js';
import { DirectorySink } from '../../../src/engine/unpack/sink.js';
import { corpus, haveShared, sharedPath } from '../../support/shared.js';

const DEFAULT_SEED = 20261125;
const seedSetting = process.env.FIRMSCOPE_FUZZ_SEED;
const SEED = !seedSetting ? DEFAULT_SEED : seedSetting === 'random' ? randomInt(1, 2 ** 31) : Number(seedSetting);
const PHASE_MS = Number(process.env.FIRMSCOPE_FUZZ_MS ?? 10_000);
const WINDOW = 192 * 1024;
if (!Number.isSafeInteger(SEED)) throw new Error(`FIRMSCOPE_FUZZ_SEED=${process.env.FIRMSCOPE_FUZZ_SEED}: expected an integer or \`random\``);
const REPLAY = `seed ${SEED}, replay with FIRMSCOPE_FUZZ_SEED=${SEED}`;

/** mulberry32: a small seeded generator; reseeded at the start of each phase. */
let rng = SEED;
const random = () => {
  rng = (rng + 0x6d2b79f5) | 0;
  let t = Math.imul(rng ^ (rng >>> 15), 1 | rng);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
};
const reseed = (phase: number) => {
  rng = (SEED ^ Math.imul(phase, 0x9e3779b1)) | 0;
};
const pick = (n: number) => Math.floor(random() * n);

/** A window of a source around a handler magic (so handlers actually get past their signature), mutated. */
function mutate(source: Buffer): Buffer {
  let at = 0;
  const magic = handlers[pick(handlers.length)]!.magics[0]!;
  const found = source.indexOf(magic.bytes, pick(Math.max(1, source.length - 16)));
  if (found !== -1) at = Math.max(0, found - (magic.offset ?? 0) - pick(64));
  else at = pick(Math.max(1, source.length - WINDOW));
  const data = Buffer.from(source.subarray(at, at + WINDOW));
  const edits = 1 + pick(12);
  for (let i = 0; i < edits && data.length > 8; i++) {
    const p = pick(data.length - 4);
    switch (pick(5)) {
      case 0:
        data[p] ^= 1 << pick(8);
        break;
      case 1:
        data.writeUInt32LE([0, 0xffffffff, 0x7fffffff, 0x80000000, data.length][pick(5)]!, p);
        break;
      case 2:
        data.writeUInt32BE([0, 0xffffffff, 0x7fffffff, 1][pick(4)]!, p);
        break;
      case 3: {
        // Duplicate a region over another (overlaps, self-references).
        const from = pick(data.length);
        data.copy(data, p, from, Math.min(data.length, from + pick(4096)));
        break;
      }
      default:
        data[p] = pick(256);
    }
  }
  return pick(4) === 0 ? data.subarray(0, pick(data.length)) : data;
}

/**
 * Fails a call that does not settle within `ms`. Promise.race only notices a hang while the event loop runs: a
 * handler stuck in synchronous code (an endless loop between awaits) blocks the timer too, so such a hang shows
 * as the test (or vitest's worker) never finishing rather than as this error. Catching those would need each
 * call in a worker thread that can be terminated.
 */
async function withDeadline<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hang: ${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every entry under `root` is a plain file or folder (no links were created) inside root. */
async function assertConfined(root: string): Promise<void> {
  const real = await realpath(root);
  async function walk(dir: string): Promise<void> {
    for (const name of await readdir(dir)) {
      const path = join(dir, name);
      const st = await lstat(path);
      expect(st.isSymbolicLink(), `link created at ${path}`).toBe(false);
      expect(relative(real, await realpath(path)).startsWith('..')).toBe(false);
      if (st.isDirectory()) await walk(path);
    }
  }
  await walk(root);
}

/** Every file of the corpus (executables, keys and all images), or none when the corpus is absent. */
const corpusDir = sharedPath('corpus');
const available = haveShared('corpus') ? readdirSync(corpusDir).filter((name) => !name.endsWith('.md')).sort() : [];
let work: string;
const sources: Buffer[] = [];
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'fs-fuzz-'));
  for (const name of available) sources.push(await readFile(corpus(name)));
  console.info(`fuzz: ${REPLAY}; ${sources.length} sources, ${PHASE_MS} ms per phase`);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** A folder of its own holding `image.bin`, a mutated corpus file; `what` names the run for a failure. */
async function mutatedImage(phase: string, iteration: number): Promise<{ dir: string; image: string; what: string }> {
  const dir = join(work, `${phase}-${iteration}`);
  await mkdir(dir);
  const image = join(dir, 'image.bin');
  const source = pick(sources.length);
  await writeFile(image, mutate(sources[source]!));
  return { dir, image, what: `${phase} iteration ${iteration}, source ${available[source]}, ${REPLAY}` };
}

describe.runIf(available.length > 0)(`fuzz (${REPLAY})`, () => {
  it('every handler rejects mutated input with FormatError/LimitError or extracts it, within a deadline', async () => {
    reseed(1);
    const bugs: string[] = [];
    const started = Date.now();
    const overtime = () => Date.now() - started >= PHASE_MS;
    let runs = 0;
    for (let iteration = 0; !overtime(); iteration++) {
      const source = pick(sources.length);
      const data = mutate(sources[source]!);
      const what = `iteration ${iteration}, source ${available[source]}, ${REPLAY}`;
      const dir = join(work, `h${iteration}`);
      await mkdir(dir);
      const path = join(dir, 'input.bin');
      await writeFile(path, data);
      const reader = await FileReader.open(path);
      try {
        for (const handler of handlers) {
          // The phase ends between handler runs, so it overruns by at most one run's deadline.
          if (runs > 0 && overtime()) break;
          for (const magic of handler.magics) {
            const match = data.indexOf(magic.bytes);
            const start = match - (magic.offset ?? 0);
            if (match === -1 || start < 0 || (handler.onlyAtStart && start !== 0)) continue;
            const budget = new Budget(resolveLimits(data.length, { maxTotalBytes: 16 * 1024 * 1024, maxFiles: 2000, timeoutMs: 4000 }));
            const sink = new DirectorySink(join(dir, `${handler.id}-${start}`), budget, { source: handler.id, path: 'input.bin' });
            runs++;
            try {
              await withDeadline(`${handler.id} at ${start} (${what})`, 8000, (async () => {
                const chunk = await handler.chunk(reader, start, { signal: budget.signal, maxOutput: budget.limits.maxTotalBytes });
                if (chunk && handler.extract) await handler.extract(reader, chunk, sink);
              })());
            } catch (error) {
              const benign = error instanceof FormatError || error instanceof LimitError || budget.signal.aborted;
              if (!benign) bugs.push(`${handler.id} at ${start} (${what}): ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
              if (error instanceof Error && error.message.startsWith('hang:')) throw error;
            } finally {
              budget.dispose();
            }
            break; // one magic per handler per input keeps the phase broad
          }
        }
      } finally {
        await reader.close();
      }
      await assertConfined(dir).catch((error: unknown) => {
        throw new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      });
      await rm(dir, { recursive: true, force: true });
    }
    console.info(`fuzz: ${runs} handler runs in ${Date.now() - started} ms`);
    expect(runs).toBeGreaterThan(0);
    expect(bugs).toEqual([]);
  }, PHASE_MS + 60_000);

  it('the driver unpacks mutated images without crashing, hanging or writing outside its folder', async () => {
    reseed(2);
    const started = Date.now();
    let images = 0;
    for (let iteration = 0; Date.now() - started < PHASE_MS; iteration++) {
      const { dir, image, what } = await mutatedImage('driver', iteration);
      const out = join(dir, 'out');
      try {
        const result = await withDeadline(what, 15_000, unpack(image, out, { limits: { timeoutMs: 5000, maxTotalBytes: 64 * 1024 * 1024, maxFiles: 5000 } }));
        expect(result.files[0]!.depth).toBe(0);
        expect((await readdir(dir)).sort()).toEqual(['image.bin', 'out']);
        await assertConfined(out);
      } catch (error) {
        throw new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      await rm(dir, { recursive: true, force: true });
      images = iteration + 1;
    }
    console.info(`fuzz: ${images} mutated images through the driver`);
    expect(images).toBeGreaterThan(0);
  }, PHASE_MS + 60_000);

  it('the whole engine scans mutated images: every stage completes, or the scan is refused with its reason', async () => {
    reseed(3);
    const bugs: string[] = [];
    const started = Date.now();
    let scans = 0;
    let refused = 0;
    for (let iteration = 0; Date.now() - started < PHASE_MS; iteration++) {
      const { dir, image, what } = await mutatedImage('scan', iteration);
      try {
        const result = await withDeadline(what, 30_000, scan(image, { workDir: join(dir, 'work'), limits: { timeoutMs: 10_000, maxTotalBytes: 64 * 1024 * 1024, maxFiles: 5000 } }));
        // an analyzer that throws loses its whole stage for the image (scan.ts records it): a parser must refuse
        // one malformed file, not every file
        for (const problem of result.problems) if (problem.message.startsWith('analyzer failed')) bugs.push(`${what}: ${problem.source}: ${problem.message}`);
      } catch (error) {
        // the engine's own refusals (nothing recognised, a limit) are answers; anything else is a crash
        if (isEngineError(error)) refused++;
        else bugs.push(`${what}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      }
      await rm(dir, { recursive: true, force: true });
      scans = iteration + 1;
    }
    console.info(`fuzz: ${scans} mutated images through the whole engine (${refused} refused)`);
    expect(scans).toBeGreaterThan(0);
    expect(bugs).toEqual([]);
  }, PHASE_MS + 60_000);
});
