// Inventory evaluation on real third-party binaries: Debian packages (bench/inventory/sets.ts) are fetched with
// `apt-get download` into a cache outside git, unpacked with dpkg-deb -x (no dpkg database is written), their
// documentation deleted, packed per set into a tar and scanned by the engine (unpacker + inventory analyzer),
// so only the binaries and ecosystem records speak. Truth comes from the packages' own metadata.
//   npx tsx bench/inventory/run.ts               (cache: $FIRMSCOPE_BENCH_CACHE or ~/.cache/firmscope-bench/inventory)
//   npx tsx bench/inventory/run.ts system-amd64  (one set)
// Prints per set and in total: recall at the exact version, wrong-version rate, components not in the truth
// (and how many of those come from text data), and the packages apt could not fetch.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, homedir, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { inventoryAnalyzer } from '../../src/engine/inventory/inventory.analyzer.js';
import { inTextDatabase } from '../../src/engine/inventory/text-databases.js';
import { scan } from '../../src/engine/scan.js';
import type { Component } from '../../src/engine/types.js';
import { SETS, type EvaluationSet, type TruthEntry, upstreamOf } from './sets.js';

const cache = process.env.FIRMSCOPE_BENCH_CACHE ?? join(homedir(), '.cache', 'firmscope-bench', 'inventory');
const only = process.argv[2];
const DOCS = ['usr/share/doc', 'usr/share/man', 'usr/share/info', 'usr/share/lintian', 'usr/share/bug', 'usr/share/doc-base', 'usr/share/bash-completion'];

const sh = (cmd: string, args: string[], cwd?: string): string => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });

function debFile(dir: string, pkg: string, arch: string): string | undefined {
  const name = readdirSync(dir).find((f) => f.startsWith(`${pkg}_`) && (f.endsWith(`_${arch}.deb`) || f.endsWith('_all.deb')));
  return name && join(dir, name);
}

function fetchDeb(pkg: string, arch: string): string | undefined {
  const dir = join(cache, 'debs', arch);
  mkdirSync(dir, { recursive: true });
  const have = debFile(dir, pkg, arch);
  if (have) return have;
  try {
    sh('apt-get', ['download', '-q', '-o', 'APT::Sandbox::User=root', `${pkg}:${arch}`], dir);
  } catch {
    return undefined;
  }
  return debFile(dir, pkg, arch);
}

interface Truth extends TruthEntry {
  truth: string;
}

function truthOf(entry: TruthEntry, deb: string): string | undefined {
  if (entry.builtUsing) {
    const m = new RegExp(`${entry.builtUsing.replace(/[.]/g, '\\.')}[\\w.]* \\(= ([^)]+)\\)`).exec(sh('dpkg-deb', ['-f', deb, 'Built-Using']));
    return m ? upstreamOf(m[1]) : undefined;
  }
  const raw = sh('dpkg-deb', ['-f', deb, 'Version']).trim().replace(/^\d+:/, '');
  const upstream = upstreamOf(raw);
  return entry.version ? entry.version(upstream, raw) : upstream;
}

const matches = (c: Component, e: TruthEntry): boolean => (e.expect.startsWith('pkg:') ? (c.purl ?? '').startsWith(`${e.expect}@`) || c.purl === e.expect : c.name === e.expect);

interface SetResult {
  entries: number;
  exact: number;
  /** Truth rows with a matching component at any version (or none). */
  listed: number;
  reportedForTruth: number;
  wrongVersion: number;
  falseComponents: Component[];
  fromText: number;
  unavailable: string[];
}

async function evaluate(set: EvaluationSet): Promise<SetResult> {
  const root = join(cache, 'extract', set.name);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const truth: Truth[] = [];
  const unavailable: string[] = [];
  for (const entry of set.entries) {
    const deb = fetchDeb(entry.pkg, entry.arch ?? set.arch);
    const t = deb && truthOf(entry, deb);
    if (!deb || !t) {
      unavailable.push(entry.pkg);
      continue;
    }
    sh('dpkg-deb', ['-x', deb, root]);
    truth.push({ ...entry, truth: t });
  }
  for (const d of DOCS) rmSync(join(root, d), { recursive: true, force: true });
  const work = mkdtempSync(join(tmpdir(), 'bench-inventory-'));
  try {
    const tar = join(work, `${set.name}.tar`);
    sh('tar', ['-cf', tar, '-C', root, '.']);
    const result = await scan(tar, { workDir: join(work, 'unpacked'), analyzers: [inventoryAnalyzer] });
    const components = result.components;
    // One truth row per (component, version): two packages of one product (openssl, libssl3) count once.
    const rows = [...new Map(truth.map((t) => [`${t.expect}@${t.truth}`, t])).values()];
    let exact = 0;
    const listed = rows.filter((t) => components.some((c) => matches(c, t))).length;
    for (const t of rows) {
      const hits = components.filter((c) => matches(c, t));
      if (hits.some((c) => c.version === t.truth)) exact++;
      else console.log(`  miss  ${t.expect} ${t.truth} (${t.pkg}): ${hits.length ? hits.map((c) => c.version ?? 'no version').join(', ') : 'not found'}`);
    }
    const forTruth = components.filter((c) => rows.some((t) => matches(c, t)) && c.version !== undefined);
    const wrong = forTruth.filter((c) => !rows.some((t) => matches(c, t) && t.truth === c.version));
    // UEFI modules attributed to a platform release in the truth (edk2) are parts of it, counted apart.
    const truthRefs = new Set(components.filter((c) => rows.some((t) => matches(c, t))).map((c) => c.ref));
    const modules = components.filter((c) => c.foundBy.includes('uefi-modules') && (c.dependsOn ?? []).some((r) => truthRefs.has(r)));
    if (modules.length) console.log(`  ${modules.length} UEFI modules attributed to ${[...new Set(modules.flatMap((m) => m.dependsOn!.filter((r) => truthRefs.has(r))))].join(', ')}`);
    const falseComponents = components.filter((c) => !rows.some((t) => matches(c, t)) && !modules.includes(c));
    for (const c of falseComponents) console.log(`  extra ${c.name}@${c.version ?? ''} (${c.foundBy.join(',')}) ${c.paths[0] ?? ''}`);
    const fromText = falseComponents.filter((c) => c.paths.every((p) => inTextDatabase(p.replace(/^[^/]*\.tar\//, '')) || /\/share\/(?:locale|man|i18n|doc)\//.test(p))).length;
    return { entries: rows.length, exact, listed, reportedForTruth: forTruth.length, wrongVersion: wrong.length, falseComponents, fromText, unavailable };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const pct = (a: number, b: number): string => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(1)}%`);
const line = (name: string, r: Omit<SetResult, 'falseComponents'> & { falseCount: number }): string =>
  `${name.padEnd(16)} recall@exact ${pct(r.exact, r.entries).padStart(6)} (${r.exact}/${r.entries})  listed ${r.listed}/${r.entries}  wrong-version ${pct(r.wrongVersion, r.reportedForTruth).padStart(6)} (${r.wrongVersion}/${r.reportedForTruth})  not-in-truth ${r.falseCount} (from text data ${r.fromText})${r.unavailable.length ? `  unavailable: ${r.unavailable.join(' ')}` : ''}`;

console.log(`date: ${new Date().toISOString()}; machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; cache ${cache}`);
const total = { entries: 0, exact: 0, listed: 0, reportedForTruth: 0, wrongVersion: 0, falseCount: 0, fromText: 0, unavailable: [] as string[] };
const lines: string[] = [];
for (const set of SETS.filter((s) => !only || s.name === only)) {
  console.log(`${set.name}:`);
  if (!existsSync(cache)) mkdirSync(cache, { recursive: true });
  const r = await evaluate(set);
  lines.push(line(set.name, { ...r, falseCount: r.falseComponents.length }));
  total.entries += r.entries;
  total.exact += r.exact;
  total.listed += r.listed;
  total.reportedForTruth += r.reportedForTruth;
  total.wrongVersion += r.wrongVersion;
  total.falseCount += r.falseComponents.length;
  total.fromText += r.fromText;
  total.unavailable.push(...r.unavailable.map((p) => `${p}:${set.arch}`));
}
console.log('');
for (const l of lines) console.log(l);
console.log(line('total', total));
