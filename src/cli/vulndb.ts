// `firmscope vulndb import FILE|DIR…`, `vulndb status` and `vulndb sync`: the local vulnerability database in the
// service's database (SQLite file in FIRMSCOPE_DATA_DIR, or DATABASE_URL).
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { readFeeds, type FeedItem } from '../engine/vulns/feed-reader.js';
import { describeNvdCursor, FeedSync, type SyncOptions } from '../engine/vulns/sync.js';
import { queueRematchJobs, REMATCH_BATCH } from '../services/rematch-jobs.js';
import { rematchLatestImages, type RematchSummary } from '../services/vuln-rematch.js';
import { dialectOf, openDatabase } from '../store/database.js';
import { createRepositories } from '../store/repositories.js';
import { clearRematch, rematchRequestedAt } from '../store/vuln-rematch-request.js';
import { VulnerabilityImporter, type ImportSummary, type VulnDbStatus } from '../store/vulns-importer.js';
import { VulnerabilityReader } from '../store/vulns-reader.js';

type Db = Awaited<ReturnType<typeof openDatabase>>['db'];

async function withRepository<T>(run: (repo: VulnerabilityImporter, db: Db) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const opened = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  try {
    return await run(new VulnerabilityImporter(opened.db), opened.db);
  } finally {
    await opened.close();
  }
}

/**
 * After the database changed: re-match the latest image of every product and report what escalated. A change an
 * earlier run committed without re-matching it (it stopped, or ran with --no-rematch) is pending and counts too;
 * the request is cleared once a re-match finishes without errors.
 */
async function rematch(db: Db, epssThreshold: number, onWorkers: boolean): Promise<RematchSummary | QueuedRematch | undefined> {
  const requested = await rematchRequestedAt(db);
  if (requested === undefined) return undefined;
  const repos = createRepositories(db, dialectOf(db));
  if (onWorkers) {
    // queued jobs are durable (retried, taken over when a worker dies): the request is met once they are queued
    const queued = await queueRematchJobs(repos, { epssThreshold });
    await clearRematch(db, requested);
    return { queued };
  }
  const summary = await rematchLatestImages(repos, new VulnerabilityReader(db), { epssThreshold, baseUrl: loadConfig().baseUrl });
  if (!summary.problems.some((p) => p.kind === 'error')) await clearRematch(db, requested);
  return summary;
}

interface QueuedRematch {
  queued: { jobs: number; images: number };
}

export function formatRematch(r: RematchSummary | QueuedRematch | undefined): string {
  if (!r) return 're-match: nothing changed, skipped\n';
  if ('queued' in r) return `re-match: queued ${r.queued.jobs} jobs for the ${r.queued.images} latest images; the workers run them\n`;
  const lines = [`re-match: ${r.images} latest images, ${r.newFindings} new findings, ${r.updatedFindings} updated, ${r.withdrawnFindings} withdrawn, ${r.escalations} escalations`];
  for (const p of r.problems.slice(0, 20)) lines.push(`  problem: ${p.message}`);
  return lines.join('\n') + '\n';
}

const threshold = (v: string): number => {
  const n = Number(v);
  if (!(n >= 0 && n <= 1)) throw new Error(`--epss-threshold ${v}: expected a probability from 0 to 1`);
  return n;
};

export function formatSummary(label: string, s: ImportSummary): string {
  const lines = [`${label}: ${s.inserted} new, ${s.updated} updated, ${s.unchanged} unchanged records; ${s.kev} KEV and ${s.epss} EPSS rows; ${s.errors.length} errors`];
  for (const e of s.errors.slice(0, 100)) lines.push(`  error: ${e.file}${e.record ? ` (record ${e.record})` : ''}: ${e.message}`);
  if (s.errors.length > 100) lines.push(`  ... ${s.errors.length - 100} more errors`);
  return lines.join('\n') + '\n';
}

export function formatStatus(s: VulnDbStatus): string {
  const total = s.records.reduce((n, r) => n + r.count, 0);
  const lines = [
    `records: ${total}${s.records.length ? ` (${s.records.map((r) => `${r.source} ${r.count}`).join(', ')})` : ''}`,
    `KEV entries: ${s.kev}`,
    `EPSS scores: ${s.epss}`,
    `newest record: ${s.newest ? `${s.newest.id} (${s.newest.source}, modified ${s.newest.modified})` : 'none'}`,
    'feeds:',
    ...(s.feeds.length === 0 ? ['  none imported yet'] : s.feeds.map((f) => `  ${f.feed}: feed date ${f.feedDate ?? 'unknown'}, updated ${f.updatedAt}${f.cursor ? `, sync cursor ${describeNvdCursor(f.cursor)}` : ''}`)),
  ];
  return lines.join('\n') + '\n';
}

export type SyncFeedName = 'nvd' | 'kev' | 'epss';

/** What one feed of a sync did: what it committed, and why it stopped when it failed. */
export interface FeedSyncResult {
  feed: SyncFeedName;
  summary: ImportSummary;
  error?: string;
}

const emptySummary = (): ImportSummary => ({ inserted: 0, updated: 0, unchanged: 0, kev: 0, epss: 0, errors: [], changed: new Set() });

function addSummary(total: ImportSummary, part: ImportSummary): void {
  total.inserted += part.inserted;
  total.updated += part.updated;
  total.unchanged += part.unchanged;
  total.kev += part.kev;
  total.epss += part.epss;
  total.errors.push(...part.errors);
  for (const id of part.changed) total.changed.add(id);
}

async function* itemsOf(items: FeedItem[]): AsyncGenerator<FeedItem> {
  yield* items;
}

/**
 * Syncs the chosen feeds, one after another. A feed that fails is reported with what it committed before failing,
 * and the next feeds still run. NVD resumes from the stored cursor; each page is imported (and so committed) before
 * the cursor it carries is stored, so a stopped sync never skips a record.
 */
export async function syncFeeds(repo: VulnerabilityImporter, feeds: SyncFeedName[], options: SyncOptions, since?: string): Promise<FeedSyncResult[]> {
  const sync = new FeedSync(options);
  const results: FeedSyncResult[] = [];
  for (const feed of feeds) {
    const summary = emptySummary();
    try {
      if (feed !== 'nvd') {
        addSummary(summary, await repo.importItems(sync.simpleFeed(feed)));
      } else {
        const cursor = since ?? (await repo.feed('nvd'))?.cursor ?? undefined;
        for await (const page of sync.nvd(cursor)) {
          addSummary(summary, await repo.importItems(itemsOf(page.items)));
          if (page.cursor !== undefined) await repo.setFeed('nvd', null, page.cursor);
        }
      }
      results.push({ feed, summary });
    } catch (e) {
      results.push({ feed, summary, error: e instanceof Error ? e.message : String(e) });
    }
  }
  return results;
}

const ON_WORKERS = `queue the re-match as jobs of ${REMATCH_BATCH} images for the scan workers (serve, firmscope worker) instead of running it here`;

export function register(program: Command): void {
  const vulndb = program.command('vulndb').description('Local vulnerability database (NVD, CVE 5, OSV, CISA KEV, FIRST EPSS)');

  vulndb
    .command('import')
    .description('Import feed files or folders: NVD API 2.0 pages/records, CVE 5, OSV, KEV catalog, EPSS CSV (.gz accepted)')
    .argument('<paths...>', 'files or folders')
    .option('--no-rematch', 'do not re-match the latest image of every product afterwards')
    .option('--on-workers', ON_WORKERS)
    .option('--epss-threshold <p>', 'EPSS probability that escalates a finding', threshold, 0.1)
    .action(async (paths: string[], opts: { rematch: boolean; onWorkers?: boolean; epssThreshold: number }) => {
      await withRepository(async (repo, db) => {
        const summary = await repo.importItems(readFeeds(paths));
        process.stdout.write(formatSummary('import', summary));
        if (opts.rematch) process.stdout.write(formatRematch(await rematch(db, opts.epssThreshold, opts.onWorkers === true)));
        if (summary.errors.length > 0) process.exitCode = 2;
      });
    });

  vulndb
    .command('status')
    .description('Counts, newest record and feed dates')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const status = await withRepository((repo) => repo.status());
      process.stdout.write(opts.json ? `${JSON.stringify(status, null, 2)}\n` : formatStatus(status));
    });

  vulndb
    .command('sync')
    .description('Fetch NVD (API 2.0, resumable), CISA KEV and FIRST EPSS')
    .option('--feeds <list>', 'comma-separated: nvd,kev,epss', 'nvd,kev,epss')
    .option('--api-key <key>', 'NVD API key (raises the rate limit from 5 to 50 requests per 30 s)')
    .option('--since <iso>', 'NVD lastModStartDate to start from (default: the stored cursor; none: everything)')
    .option('--nvd-url <url>', 'NVD CVE API 2.0 endpoint (a mirror)')
    .option('--kev-url <url>', 'KEV catalog URL')
    .option('--epss-url <url>', 'EPSS CSV URL')
    .option('--no-rematch', 'do not re-match the latest image of every product afterwards')
    .option('--on-workers', ON_WORKERS)
    .option('--epss-threshold <p>', 'EPSS probability that escalates a finding', threshold, 0.1)
    .action(async (opts: { feeds: string; apiKey?: string; since?: string; nvdUrl?: string; kevUrl?: string; epssUrl?: string; rematch: boolean; onWorkers?: boolean; epssThreshold: number }) => {
      const feeds = opts.feeds.split(',').map((f) => f.trim()).filter(Boolean);
      const bad = feeds.filter((f) => !['nvd', 'kev', 'epss'].includes(f));
      if (bad.length > 0) throw new Error(`unknown feed(s) ${bad.join(', ')}: expected nvd, kev, epss`);
      if (opts.since && Number.isNaN(Date.parse(opts.since))) throw new Error(`--since ${opts.since}: expected an ISO 8601 time`);
      const options: SyncOptions = {
        ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
        ...(opts.nvdUrl ? { nvdUrl: opts.nvdUrl } : {}),
        ...(opts.kevUrl ? { kevUrl: opts.kevUrl } : {}),
        ...(opts.epssUrl ? { epssUrl: opts.epssUrl } : {}),
        log: (line) => process.stderr.write(`${line}\n`),
      };
      await withRepository(async (repo, db) => {
        const results = await syncFeeds(repo, feeds as SyncFeedName[], options, opts.since);
        for (const r of results) {
          process.stdout.write(formatSummary(`sync ${r.feed}`, r.summary));
          if (r.error) process.stdout.write(`sync ${r.feed} failed: ${r.error}\n`);
        }
        // what the failed feeds committed before failing is re-matched too
        if (opts.rematch) process.stdout.write(formatRematch(await rematch(db, opts.epssThreshold, opts.onWorkers === true)));
        if (results.some((r) => r.error)) process.exitCode = 1;
      });
    });
}
