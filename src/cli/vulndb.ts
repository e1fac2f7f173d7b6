// `firmscope vulndb import FILE|DIR…`, `vulndb status` and `vulndb sync`: the local vulnerability database in the
// service's database (SQLite file in FIRMSCOPE_DATA_DIR, or DATABASE_URL).
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { readFeeds, type FeedItem } from '../engine/vulns/feed-reader.js';
import { FeedSync, type SyncOptions } from '../engine/vulns/sync.js';
import { openDatabase } from '../store/database.js';
import { rematchLatestImages, type RematchSummary } from '../store/vulns-rematch.js';
import { VulnerabilityRepository, type ImportSummary, type VulnDbStatus } from '../store/vulns.repository.js';

type Db = Awaited<ReturnType<typeof openDatabase>>['db'];

async function withRepository<T>(run: (repo: VulnerabilityRepository, db: Db) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const opened = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  try {
    return await run(new VulnerabilityRepository(opened.db), opened.db);
  } finally {
    await opened.close();
  }
}

/** After the database changed: re-match the latest image of every product and report what escalated. */
async function rematch(repo: VulnerabilityRepository, db: Db, summaries: ImportSummary[], epssThreshold: number): Promise<RematchSummary | undefined> {
  if (summaries.every((s) => s.changed.size === 0)) return undefined;
  return rematchLatestImages(db, repo, { epssThreshold });
}

export function formatRematch(r: RematchSummary | undefined): string {
  if (!r) return 're-match: nothing changed, skipped\n';
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
    ...(s.feeds.length === 0 ? ['  none imported yet'] : s.feeds.map((f) => `  ${f.feed}: feed date ${f.feedDate ?? 'unknown'}, updated ${f.updatedAt}${f.cursor ? `, sync cursor ${f.cursor}` : ''}`)),
  ];
  return lines.join('\n') + '\n';
}

/** Syncs the chosen feeds; NVD resumes from the stored cursor and saves it after every completed window. */
export async function syncFeeds(repo: VulnerabilityRepository, feeds: Array<'nvd' | 'kev' | 'epss'>, options: SyncOptions, since?: string): Promise<ImportSummary[]> {
  const sync = new FeedSync(options);
  const summaries: ImportSummary[] = [];
  for (const feed of feeds) {
    if (feed !== 'nvd') {
      summaries.push(await repo.importItems(sync.simpleFeed(feed)));
      continue;
    }
    const cursor = since ?? (await repo.feed('nvd'))?.cursor ?? undefined;
    // importItems pulls one item at a time and stores it before pulling the next, so when a window's cursor
    // arrives every record of that window is stored: a stopped sync resumes after the last completed window
    async function* records(): AsyncGenerator<FeedItem> {
      for await (const item of sync.nvd(cursor)) {
        if (item.kind === 'cursor') await repo.setFeed('nvd', null, item.cursor);
        else yield item;
      }
    }
    summaries.push(await repo.importItems(records()));
  }
  return summaries;
}

export function register(program: Command): void {
  const vulndb = program.command('vulndb').description('Local vulnerability database (NVD, CVE 5, OSV, CISA KEV, FIRST EPSS)');

  vulndb
    .command('import')
    .description('Import feed files or folders: NVD API 2.0 pages/records, CVE 5, OSV, KEV catalog, EPSS CSV (.gz accepted)')
    .argument('<paths...>', 'files or folders')
    .option('--no-rematch', 'do not re-match the latest image of every product afterwards')
    .option('--epss-threshold <p>', 'EPSS probability that escalates a finding', threshold, 0.1)
    .action(async (paths: string[], opts: { rematch: boolean; epssThreshold: number }) => {
      await withRepository(async (repo, db) => {
        const summary = await repo.importItems(readFeeds(paths));
        process.stdout.write(formatSummary('import', summary));
        if (opts.rematch) process.stdout.write(formatRematch(await rematch(repo, db, [summary], opts.epssThreshold)));
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
    .option('--epss-threshold <p>', 'EPSS probability that escalates a finding', threshold, 0.1)
    .action(async (opts: { feeds: string; apiKey?: string; since?: string; nvdUrl?: string; kevUrl?: string; epssUrl?: string; rematch: boolean; epssThreshold: number }) => {
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
        const summaries = await syncFeeds(repo, feeds as Array<'nvd' | 'kev' | 'epss'>, options, opts.since);
        summaries.forEach((s, i) => process.stdout.write(formatSummary(`sync ${feeds[i]}`, s)));
        if (opts.rematch) process.stdout.write(formatRematch(await rematch(repo, db, summaries, opts.epssThreshold)));
      });
    });
}
