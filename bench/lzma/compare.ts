// Issue #15, "a fast install": lzma-native (its prebuilt binary, and rebuilt at -O2 as scripts/optimise-lzma-native.mjs
// does at install) against @napi-rs/lzma (prebuilt, no compiler), on install time and on decode speed. Everything
// happens in a scratch folder, never in the project (whose package.json and node_modules stay untouched).
//
//   npx tsx bench/lzma/compare.ts install [DIR]   # DIR defaults to /tmp/lzma-compare
//   npx tsx bench/lzma/compare.ts decode [DIR]
//
// install: for each package, an empty folder with its own empty npm cache (DIR/cache-napi, DIR/cache-native) and
//   `npm install` of that package alone, timed (wall and CPU through /usr/bin/time), BENCH_RUNS times (default 3;
//   each run starts again from an empty folder and cache). lzma-native's install script is allowed, as the project's
//   package.json allows it. Then lzma-native's -O2 rebuild in DIR/inst-native, run the way the optimise script runs
//   it (`npm rebuild lzma-native` with CFLAGS=-O2 and npm_config_build_from_source=true), BENCH_REBUILDS times
//   (default 3). After this DIR/inst-napi holds @napi-rs/lzma, DIR/inst-native lzma-native at -O2, and
//   DIR/inst-prebuilt lzma-native with its prebuilt binary.
// decode: builds DIR/data once: a tar of /usr/bin files (about 60 MB) compressed by the xz command as .xz (-6),
//   as LZMA-alone (.lzma, -6), as raw LZMA1 (-6 settings; the engine's raw decoder serves headerless LZMA streams) and as
//   independent 128 KiB xz blocks (SquashFS's xz blocks). Each implementation decodes each input in its own child
//   process, BENCH_RUNS times; the child times the decode alone (module loaded, input read), checks the output's
//   SHA-256 against the tar's and reports wall and CPU time; the median run (by wall time) is printed.
//   lzma-native is driven as the engine drives it (src/engine/unpack/codecs/lzma.ts: its native Stream, fed in
//   16 KiB steps, synchronously); @napi-rs/lzma through the only API it has (whole-buffer decompressSync).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fmt, median, timed, type Timing } from '../system-image.js';

const [command = 'decode', dirArg] = process.argv.slice(2);
const dir = dirArg ?? '/tmp/lzma-compare';
const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const rebuilds = Math.max(1, Number(process.env.BENCH_REBUILDS ?? 3));
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const packages = { napi: '@napi-rs/lzma', native: 'lzma-native@8.0.6' } as const;

function freshProject(folder: string): void {
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'scratch', version: '1.0.0', private: true, allowScripts: { 'lzma-native': true } }));
}

function install(): void {
  mkdirSync(dir, { recursive: true });
  console.log(`install timings, ${new Date().toISOString()}, load average ${load()}`);
  const row = (name: string, t: Timing, all: Timing[]) =>
    console.log(`| ${name} | ${fmt(t)} | ${all.map((r) => (r.ms / 1000).toFixed(1)).join(', ')} s |`);
  for (const key of ['napi', 'native'] as const) {
    const all: Timing[] = [];
    const t = median(runs, () => {
      const folder = join(dir, `inst-${key}`);
      const cache = join(dir, `cache-${key}`);
      freshProject(folder);
      rmSync(cache, { recursive: true, force: true });
      const r = timed(dir, 'npm', ['install', '--no-audit', '--no-fund', '--cache', cache, packages[key]], { cwd: folder });
      if (!r.ok) throw new Error(`npm install ${packages[key]} failed: ${r.stderr}`);
      all.push(r);
      return r;
    });
    row(`npm install ${packages[key]}, empty cache`, t, all);
  }
  // A copy of the untouched lzma-native install keeps the prebuilt binary for the decode comparison.
  rmSync(join(dir, 'inst-prebuilt'), { recursive: true, force: true });
  spawnSync('cp', ['-a', join(dir, 'inst-native'), join(dir, 'inst-prebuilt')]);
  const all: Timing[] = [];
  const t = median(rebuilds, () => {
    const folder = join(dir, 'inst-native');
    rmSync(join(folder, 'node_modules', 'lzma-native', 'build'), { recursive: true, force: true });
    const env = { ...process.env, CFLAGS: '-O2', npm_config_build_from_source: 'true' };
    const r = timed(dir, 'npm', ['rebuild', 'lzma-native', '--foreground-scripts=false', '--cache', join(dir, 'cache-native')], { cwd: folder, env });
    if (!r.ok || !existsSync(join(folder, 'node_modules', 'lzma-native', 'build', 'Release', 'lzma_native.node'))) throw new Error(`rebuild failed: ${r.stderr}`);
    all.push(r);
    return r;
  });
  row('lzma-native -O2 rebuild (postinstall)', t, all);
  console.log(`load average after: ${load()}`);
}

// ---- decode ----

const BLOCK = 128 * 1024;

function buildData(data: string): void {
  const tar = join(data, 'usr-bin.tar');
  if (existsSync(join(data, 'blocks.json'))) return;
  mkdirSync(data, { recursive: true });
  const files: string[] = [];
  const inodes = new Set<number>(); // hard links are stored once by tar
  let bytes = 0;
  for (const name of readdirSync('/usr/bin').sort()) {
    const path = join('/usr/bin', name);
    const st = lstatSync(path, { throwIfNoEntry: false }); // symlinks are stored as links by tar
    if (!st?.isFile() || st.size > 8_000_000 || inodes.has(st.ino)) continue;
    inodes.add(st.ino);
    files.push(path);
    bytes += st.size;
    if (bytes >= 60_000_000) break;
  }
  const ok = (r: ReturnType<typeof spawnSync>) => {
    if (r.status !== 0) throw new Error(String(r.stderr));
  };
  ok(spawnSync('tar', ['-cf', tar, '--absolute-names', ...files]));
  ok(spawnSync('sh', ['-c', `xz -6 -T1 -k -c ${tar} > ${tar}.xz`]));
  ok(spawnSync('sh', ['-c', `xz --format=lzma -6 -k -c ${tar} > ${tar}.lzma`]));
  ok(spawnSync('sh', ['-c', `xz --format=raw --lzma1=preset=6 -k -c ${tar} > ${tar}.raw`]));
  const whole = readFileSync(tar);
  const sizes: number[] = [];
  const parts: Buffer[] = [];
  for (let at = 0; at < whole.length; at += BLOCK) {
    const r = spawnSync('xz', ['--check=crc32', '--lzma2=preset=6,dict=128KiB', '-c'], { input: whole.subarray(at, at + BLOCK), maxBuffer: 1 << 24 });
    ok(r);
    parts.push(r.stdout as Buffer);
    sizes.push((r.stdout as Buffer).length);
  }
  writeFileSync(`${tar}.blocks`, Buffer.concat(parts));
  writeFileSync(join(data, 'blocks.json'), JSON.stringify(sizes));
}

type Impl = 'napi' | 'native-prebuilt' | 'native-O2';
type Input = 'xz' | 'lzma' | 'raw' | 'blocks';
const implDir: Record<Impl, string> = { napi: 'inst-napi', 'native-prebuilt': 'inst-prebuilt', 'native-O2': 'inst-native' };

interface NativeStream {
  bufferHandler: (buf: Buffer | null | undefined, processed: number | undefined, error: Error | null | undefined) => void;
  streamDecoder(options: { flags?: number }): void;
  aloneDecoder(options: { memlimit?: number }): void;
  rawDecoder(options: { filters: unknown[] }): void;
  code(input: Buffer | null, async: boolean): void;
  resetUnderlying(): void;
}
interface NativeModule {
  Stream: new () => NativeStream;
  CONCATENATED: number;
  FILTER_LZMA1: number;
}
type Decompress = (input: Buffer) => Buffer;

/** lzma-native, as src/engine/unpack/codecs/lzma.ts drives it. */
function nativeDecoder(lib: NativeModule, kind: Input): Decompress {
  return (input) => {
    const stream = new lib.Stream();
    if (kind === 'lzma') stream.aloneDecoder({});
    else if (kind === 'raw') stream.rawDecoder({ filters: [{ id: lib.FILTER_LZMA1, options: { dictSize: 8 << 20, lc: 3, lp: 0, pb: 2 } }] });
    else stream.streamDecoder({ flags: lib.CONCATENATED });
    const parts: Buffer[] = [];
    let failure: Error | undefined;
    stream.bufferHandler = (buf, _processed, error) => {
      if (buf) parts.push(buf);
      else if (error) failure = error;
    };
    try {
      for (let at = 0; at < input.length && !failure; at += 16 * 1024) stream.code(input.subarray(at, at + 16 * 1024), false);
      stream.code(null, false);
    } finally {
      stream.resetUnderlying();
    }
    if (failure) throw failure;
    return Buffer.concat(parts);
  };
}

/** One decode in this (child) process: prints JSON with the times and whether the output matched. */
function decodeOne(impl: Impl, kind: Input): void {
  const require = createRequire(join(dir, implDir[impl], 'package.json'));
  const data = join(dir, 'data');
  let decompress: Decompress | undefined;
  if (impl === 'napi') {
    const lib = require('@napi-rs/lzma') as Record<string, { decompressSync: Decompress }>;
    if (kind === 'xz' || kind === 'blocks') decompress = lib.xz!.decompressSync;
    else if (kind === 'lzma') decompress = lib.lzma!.decompressSync;
  } else decompress = nativeDecoder(require('lzma-native') as NativeModule, kind);
  if (!decompress) {
    console.log(JSON.stringify({ unsupported: true }));
    return;
  }
  const tar = readFileSync(join(data, 'usr-bin.tar'));
  const expected = createHash('sha256').update(tar).digest('hex');
  const input = readFileSync(join(data, `usr-bin.tar.${kind}`));
  const sizes = kind === 'blocks' ? (JSON.parse(readFileSync(join(data, 'blocks.json'), 'utf8')) as number[]) : [input.length];
  const out: Buffer[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let at = 0;
  for (const size of sizes) {
    out.push(decompress(input.subarray(at, at + size)));
    at += size;
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const sha = createHash('sha256').update(Buffer.concat(out)).digest('hex');
  console.log(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, matches: sha === expected }));
}

function decode(): void {
  const data = join(dir, 'data');
  buildData(data);
  const sizeOf = (kind: Input) => (statSync(join(data, `usr-bin.tar.${kind}`)).size / 1e6).toFixed(1);
  const tarMb = (statSync(join(data, 'usr-bin.tar')).size / 1e6).toFixed(1);
  console.log(`decode timings, ${new Date().toISOString()}, load average ${load()}; ${tarMb} MB tar of /usr/bin; median of ${runs}`);
  console.log('| input | implementation | median wall (cpu) | all runs, wall |');
  console.log('|---|---|---:|---|');
  for (const kind of ['xz', 'lzma', 'raw', 'blocks'] as Input[]) {
    for (const impl of ['native-O2', 'native-prebuilt', 'napi'] as Impl[]) {
      if (!existsSync(join(dir, implDir[impl]))) throw new Error(`${join(dir, implDir[impl])} is missing: run the install step first`);
      const all: Array<{ ms: number; cpuMs: number }> = [];
      let unsupported = false;
      const t = median(runs, () => {
        const r = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, 'one', dir, impl, kind], { encoding: 'utf8', maxBuffer: 1 << 20 });
        if (r.status !== 0) throw new Error(`${impl} ${kind}: ${r.stderr}`);
        const result = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { ms: number; cpuMs: number; matches: boolean; unsupported?: boolean };
        if (result.unsupported) unsupported = true;
        else if (!result.matches) throw new Error(`${impl} ${kind}: output differs from the tar`);
        all.push(result);
        return result;
      });
      const label = `${kind === 'blocks' ? `${JSON.parse(readFileSync(join(data, 'blocks.json'), 'utf8')).length} × 128 KiB xz blocks` : `.${kind}`} (${sizeOf(kind)} MB)`;
      if (unsupported) console.log(`| ${label} | ${impl} | not supported by its API | |`);
      else console.log(`| ${label} | ${impl} | ${fmt(t)} | ${all.map((r) => (r.ms / 1000).toFixed(2)).join(', ')} s |`);
      if (unsupported) all.length = 0;
    }
  }
  console.log(`load average after: ${load()}`);
}

if (command === 'install') install();
else if (command === 'decode') decode();
else if (command === 'one') decodeOne(process.argv[4] as Impl, process.argv[5] as Input);
else throw new Error(`unknown command ${command}: install | decode`);
