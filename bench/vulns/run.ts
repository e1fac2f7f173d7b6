// Vulnerability database benchmark: `npx tsx bench/vulns/run.ts [--records 300000] [--components 500]
// [--import-records 10000] [--stores memory,sqlite,postgres] [--profile DIR]`.
// 1. import time per 10,000 NVD records (API 2.0 pages through the real streaming importer and repository);
// 2. match time for an inventory of 500 components against a database of 300,000 generated NVD-shaped records,
//    with the kernel triage of the kernel's findings (a generated configuration, programFiles from the kbuild
//    table), in memory and in SQLite (and PostgreSQL when FIRMSCOPE_TEST_DATABASE_URL is set). Target: < 200 ms per
//    inventory, judged on both wall time (what a scan waits; on a shared machine it also measures the other
//    processes) and CPU of this process (which also counts V8's garbage collection threads; for PostgreSQL the
//    server's own work is in the wall time only).
import { createHash } from 'node:crypto';
import { Session } from 'node:inspector/promises';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'kysely';
import { readFeeds } from '../../src/engine/vulns/feed-reader.js';
import { VulnerabilityMatcher } from '../../src/engine/vulns/matcher.js';
import { MemoryVulnerabilitySource } from '../../src/engine/vulns/memory-source.js';
import { nvdCveToRecord } from '../../src/engine/vulns/nvd-api2.importer.js';
import type { Component } from '../../src/engine/types.js';
import type { KernelEvidence } from '../../src/engine/vulns/kernel-evidence.js';
import { kernelFileOptions, triageKernelFindings } from '../../src/engine/vulns/kernel-triage.js';
import type { VulnerabilityRecord } from '../../src/engine/vulns/source.js';
import { openDatabase, type OpenedDatabase } from '../../src/store/database.js';
import { VulnerabilityImporter } from '../../src/store/vulns-importer.js';
import { VulnerabilityReader } from '../../src/store/vulns-reader.js';
import { bulkLoad } from './bulk-load.js';
import { generateCve, generatePage, PRODUCTS, productName, rng } from './generate.js';

const { values } = parseArgs({ options: {
  records: { type: 'string', default: '300000' }, components: { type: 'string', default: '500' }, 'import-records': { type: 'string', default: '10000' },
  // which sources to match against, e.g. `--stores postgres` (with `--import-records 0`) to time one store on a busy machine
  stores: { type: 'string', default: 'memory,sqlite,postgres' },
  // a CPU profile of each line's timed runs, DIR/<line>.cpuprofile (read with bench/scan/profile-summary.ts)
  profile: { type: 'string' },
} });
const stores = new Set(values.stores.split(','));
const totalRecords = Number(values.records);
const componentCount = Number(values.components);
const importRecords = Number(values['import-records']);
const ms = (t: bigint) => Number(process.hrtime.bigint() - t) / 1e6;
/** CPU time of this process since `c` (user + system, ms): on a shared, busy machine wall time overstates cost. */
const cpuMs = (c: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(c);
  return (d.user + d.system) / 1000;
};

async function databases(dir: string): Promise<Array<[string, OpenedDatabase]>> {
  const out: Array<[string, OpenedDatabase]> = stores.has('sqlite') ? [['sqlite', await openDatabase({ dataDir: join(dir, 'sqlite') })]] : [];
  const pgBase = process.env.FIRMSCOPE_TEST_DATABASE_URL;
  if (pgBase && stores.has('postgres')) {
    const pg = (await import('pg')).default;
    const schema = `bench_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: pgBase });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    const url = new URL(pgBase);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const opened = await openDatabase({ url: url.toString(), dataDir: dir });
    out.push(['postgres', { ...opened, close: async () => { await opened.close(); const c = new pg.Client({ connectionString: pgBase }); await c.connect(); await c.query(`DROP SCHEMA ${schema} CASCADE`); await c.end(); } }]);
  }
  return out;
}

function inventory(random: () => number): Component[] {
  // a firmware inventory: the heaviest product (like the Linux kernel, ~5% of NVD) plus components spread over
  // the catalogue (libraries and tools with a handful to a few hundred records each)
  const seen = new Set<number>([0]);
  while (seen.size < componentCount) seen.add(Math.floor(random() * PRODUCTS));
  return [...seen].map((i) => {
    const { vendor, product, part } = productName(i);
    const version = `${Math.floor(random() * 5)}.${Math.floor(random() * 20)}.${Math.floor(random() * 30)}`;
    return { ref: `${product}@${version}`, name: product, version, type: part === 'o' ? 'operating-system' : 'library', confidence: 1, cpe: `cpe:2.3:${part}:${vendor}:${product}:${version}:*:*:*:*:*:*:*`, paths: [`lib/${product}.so`], evidence: [], foundBy: ['bench'] };
  });
}

const RUNS = 5;

/**
 * The kernel CNA's records name the affected source files: each generated kernel record gets one to three files of
 * the kbuild table, and the kernel a configuration that has 60% of the table's options =y, 10% =m and the rest
 * off (no module ships), so the triage decides every kind of verdict.
 */
function kernelFiles(records: VulnerabilityRecord[], random: () => number): void {
  const files = [...kernelFileOptions().keys()];
  for (const record of records) {
    if (!record.criteria.some((group) => group.some((c) => c.criteria.includes(':linux:linux_kernel:')))) continue;
    record.programFiles = Array.from({ length: 1 + Math.floor(random() * 3) }, () => files[Math.floor(random() * files.length)]!);
  }
}

function kernelEvidence(random: () => number): KernelEvidence {
  const options: Record<string, 'y' | 'm' | 'n'> = { MIPS: 'y' };
  for (const list of kernelFileOptions().values()) {
    for (const option of list) {
      if (options[option]) continue;
      const r = random();
      options[option] = r < 0.6 ? 'y' : r < 0.7 ? 'm' : 'n';
    }
  }
  return { config: { source: 'bench (generated)', options }, modules: { source: 'lib/modules', shipped: [], builtin: [], symbols: [] } };
}
const evidence = kernelEvidence(rng(4));

/** A full garbage collection between benchmark phases (the flag is set at run time, so `npx tsx` needs no option). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** Matches the inventory RUNS times, each with a new matcher from `matcher()`, and prints the first run and the median. */
async function timeMatch(label: string, matcher: () => VulnerabilityMatcher, components: Component[]): Promise<void> {
  const runs: Array<{ wall: number; cpu: number }> = [];
  let findings = 0;
  let triage: ReturnType<typeof triageKernelFindings> | undefined;
  let digest = '';
  const session = values.profile ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  for (let i = 0; i < RUNS; i++) {
    const t = process.hrtime.bigint();
    const c = process.cpuUsage();
    const found = await matcher().matchAll(components, []);
    // with the kernel triage, as a scan of an image with a kernel configuration runs it
    triage = triageKernelFindings(found, evidence);
    findings = found.length;
    runs.push({ wall: ms(t), cpu: cpuMs(c) });
    // outside the timing: a digest of the findings JSON, which a change to the matcher that must not change results
    // keeps (the inventory and records come from fixed seeds); both stores give the same one, the in-memory source
    // the same findings in another order (its records' order), so another digest
    if (i === 0) digest = createHash('sha256').update(JSON.stringify(found)).digest('hex').slice(0, 16);
  }
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(values.profile!, { recursive: true });
    writeFileSync(join(values.profile!, `${label.replace(/[^a-z0-9]+/gi, '-')}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
  const first = runs[0]!;
  const median = (key: 'wall' | 'cpu') => runs.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
  // both readings: wall time is what a scan waits; CPU also counts V8's garbage collection threads
  const verdict = (key: 'wall' | 'cpu') => (median(key) < 200 ? 'met' : 'NOT met');
  const triaged = triage ? ` (kernel triage: ${triage.applicable} applicable, ${triage['not-applicable']} not, ${triage.unknown} unknown)` : '';
  console.log(`match ${components.length} components, ${label}: ${findings} findings${triaged}; median of ${RUNS} ${median('wall').toFixed(0)} ms wall / ${median('cpu').toFixed(0)} ms CPU; first run ${first.wall.toFixed(0)} ms wall / ${first.cpu.toFixed(0)} ms CPU; findings digest ${digest} (target < 200 ms: wall ${verdict('wall')}, CPU ${verdict('cpu')}; load average ${loadavg()[0]!.toFixed(1)})`);
}

const dir = mkdtempSync(join(tmpdir(), 'firmscope-bench-'));
try {
  const dbs = await databases(dir);
  // 1. import through the real path
  const pages = join(dir, 'pages');
  mkdirSync(pages);
  const random = rng(1);
  for (let first = 0, p = 0; first < importRecords; first += 2000, p++) {
    writeFileSync(join(pages, `page-${p}.json`), generatePage(first, Math.min(2000, importRecords - first), random));
  }
  for (const [name, db] of importRecords > 0 ? dbs : []) {
    const repo = new VulnerabilityImporter(db.db);
    const reader = new VulnerabilityReader(db.db);
    const t = process.hrtime.bigint();
    const c = process.cpuUsage();
    const s = await repo.importItems(readFeeds([pages]));
    const took = ms(t);
    const cpu = cpuMs(c);
    const per10k = (x: number) => (((x / s.inserted) * 10000) / 1000).toFixed(2);
    console.log(`import ${s.inserted} NVD records (${name}): ${per10k(took)} s wall / ${per10k(cpu)} s CPU per 10,000 records`);
    const t2 = process.hrtime.bigint();
    const again = await repo.importItems(readFeeds([pages]));
    console.log(`re-import (${name}): ${(ms(t2) / 1000).toFixed(2)} s wall, ${again.unchanged} unchanged`);
  }

  // 2. a 300,000-record database, then match
  const genRandom = rng(2);
  const t = process.hrtime.bigint();
  let records: VulnerabilityRecord[] = [];
  for (let n = 0; n < totalRecords; n++) records.push(nvdCveToRecord(generateCve(1_000_000 + n, genRandom)));
  kernelFiles(records, rng(5));
  console.log(`generated ${totalRecords} records in ${(ms(t) / 1000).toFixed(1)} s (load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores)`);
  const components = inventory(rng(3));
  const tail = components.slice(1);
  if (stores.has('memory')) {
    const memory = new MemoryVulnerabilitySource();
    for (const record of records) memory.putRecord(record);
    collectGarbage();
    await timeMatch('in-memory source', () => new VulnerabilityMatcher(memory), components);
    await timeMatch('in-memory source, without the kernel-like product', () => new VulnerabilityMatcher(memory), tail);
  }
  for (const [name, db] of dbs) {
    // the matching database holds exactly the generated records, not those of the import step
    for (const table of ['vuln_criteria', 'vuln_aliases', 'vuln_records'] as const) await db.db.deleteFrom(table).execute();
    const t3 = process.hrtime.bigint();
    await bulkLoad(db.db, records);
    // what autovacuum does soon after a large import: statistics, and the visibility map for index-only scans
    if (name === 'postgres') for (const table of ['vuln_records', 'vuln_criteria']) await sql`VACUUM ANALYZE ${sql.table(table)}`.execute(db.db);
    console.log(`bulk-loaded ${records.length} records into ${name} in ${(ms(t3) / 1000).toFixed(1)} s`);
  }
  // the stores are timed without the generated records in this process's heap, as in a scan: they are dropped
  // and collected now, so that collecting them is not charged to the first store's runs
  records = [];
  for (const [name, db] of dbs) {
    collectGarbage();
    // a scan in a new thread (the first one, or after a failed scan) has a new repository and parses every record
    // it loads; a scan in a kept thread (engine-runner.ts) and re-matching keep one repository across images
    await timeMatch(`${name}, new repository per run (a scan in a new thread)`, () => new VulnerabilityMatcher(new VulnerabilityReader(db.db)), components);
    const reader = new VulnerabilityReader(db.db);
    await timeMatch(`${name}, one repository (a scan in a kept thread, re-matching: records parsed once)`, () => new VulnerabilityMatcher(reader), components);
    await timeMatch(`${name}, new repository per run, without the kernel-like product`, () => new VulnerabilityMatcher(new VulnerabilityReader(db.db)), tail);
    await db.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
