// Fetches the public feeds: NVD CVE API 2.0 (paged by lastModified window, optional API key, within NVD's
// published rate limits, resumable from a lastModStartDate cursor), the CISA KEV catalog and the FIRST EPSS CSV.
// Responses are streamed to a temporary file and read by the same streaming importers as `vulndb import`.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { readFeeds, type FeedItem } from './feed-reader.js';
import { isObj } from './feed-values.js';
import { openMaybeGzip, streamJson } from './json-stream.js';
import { nvdCveToRecord } from './nvd-api2.importer.js';

export const FEED_URLS = {
  nvd: 'https://services.nvd.nist.gov/rest/json/cves/2.0',
  kev: 'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json',
  epss: 'https://epss.empiricalsecurity.com/epss_scores-current.csv.gz',
};

export interface SyncOptions {
  nvdUrl?: string;
  kevUrl?: string;
  epssUrl?: string;
  apiKey?: string;
  /** Requests allowed per window: NVD allows 5 per 30 s without a key and 50 with one. */
  rateLimit?: { requests: number; windowMs: number };
  resultsPerPage?: number;
  /** Attempts per request on 403/429/5xx and network errors, with growing pauses. */
  retries?: number;
  retryDelayMs?: number;
  fetch?: typeof fetch;
  now?: () => Date;
  log?: (line: string) => void;
}

/** A sliding-window limiter: at most `requests` starts in any `windowMs`. */
export class RateLimiter {
  private readonly starts: number[] = [];
  constructor(private readonly requests: number, private readonly windowMs: number) {}
  async wait(): Promise<void> {
    for (;;) {
      const now = Date.now();
      while (this.starts.length > 0 && now - this.starts[0]! >= this.windowMs) this.starts.shift();
      if (this.starts.length < this.requests) {
        this.starts.push(now);
        return;
      }
      await new Promise((r) => setTimeout(r, this.windowMs - (now - this.starts[0]!) + 5));
    }
  }
}

const NVD_MAX_WINDOW_DAYS = 120;
const DAY = 86_400_000;

/** NVD wants ISO 8601 with an explicit offset. */
const nvdTime = (d: Date) => d.toISOString().replace('Z', '+00:00');

export class FeedSync {
  private readonly limiter: RateLimiter;
  private readonly fetch: typeof fetch;
  constructor(private readonly options: SyncOptions = {}) {
    const rate = options.rateLimit ?? (options.apiKey ? { requests: 50, windowMs: 30_000 } : { requests: 5, windowMs: 30_000 });
    this.limiter = new RateLimiter(rate.requests, rate.windowMs);
    this.fetch = options.fetch ?? fetch;
  }

  /** GETs a URL into a temporary file, retrying transient failures; returns the file path. */
  private async download(url: string, dir: string, name: string, headers: Record<string, string> = {}): Promise<string> {
    const retries = this.options.retries ?? 4;
    let lastError = '';
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, (this.options.retryDelayMs ?? 6000) * attempt));
      await this.limiter.wait();
      try {
        const res = await this.fetch(url, { headers });
        if (res.ok && res.body) {
          const file = join(dir, name);
          await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), createWriteStream(file));
          return file;
        }
        lastError = `HTTP ${res.status} ${res.statusText}`.trim();
        await res.body?.cancel();
        if (res.status !== 403 && res.status !== 429 && res.status < 500) break;
      } catch (e) {
        lastError = e instanceof Error ? e.message : String(e);
      }
      this.options.log?.(`${url}: ${lastError}${attempt < retries ? ', retrying' : ''}`);
    }
    throw new Error(`GET ${url} failed: ${lastError}`);
  }

  private async withTemp<T>(run: (dir: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(join(tmpdir(), 'firmscope-sync-'));
    try {
      return await run(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The KEV catalog or the EPSS CSV, as feed items. */
  async *simpleFeed(kind: 'kev' | 'epss'): AsyncGenerator<FeedItem> {
    const url = kind === 'kev' ? this.options.kevUrl ?? FEED_URLS.kev : this.options.epssUrl ?? FEED_URLS.epss;
    const dir = await mkdtemp(join(tmpdir(), 'firmscope-sync-'));
    try {
      const file = await this.download(url, dir, kind === 'kev' ? 'kev.json' : 'epss.csv.gz');
      yield* readFeeds([file]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * NVD records modified since `cursor` (everything when absent), window by window. After each completed window
   * it yields a `cursor` item: the lastModStartDate to resume from if the sync stops later.
   */
  async *nvd(cursor: string | undefined): AsyncGenerator<FeedItem | { kind: 'cursor'; cursor: string }> {
    const base = this.options.nvdUrl ?? FEED_URLS.nvd;
    const perPage = this.options.resultsPerPage ?? 2000;
    const headers: Record<string, string> = this.options.apiKey ? { apiKey: this.options.apiKey } : {};
    const end = (this.options.now ?? (() => new Date()))();
    const windows: Array<[Date, Date] | undefined> = [];
    if (!cursor) windows.push(undefined);
    else {
      for (let from = new Date(cursor); from < end; from = new Date(from.getTime() + NVD_MAX_WINDOW_DAYS * DAY)) {
        windows.push([from, new Date(Math.min(end.getTime(), from.getTime() + NVD_MAX_WINDOW_DAYS * DAY))]);
      }
    }
    for (const window of windows) {
      let startIndex = 0;
      let total = Infinity;
      while (startIndex < total) {
        const url = new URL(base);
        url.searchParams.set('resultsPerPage', String(perPage));
        url.searchParams.set('startIndex', String(startIndex));
        if (window) {
          url.searchParams.set('lastModStartDate', nvdTime(window[0]));
          url.searchParams.set('lastModEndDate', nvdTime(window[1]));
        }
        const items: Array<FeedItem> = [];
        let count = 0;
        await this.withTemp(async (dir) => {
          const file = await this.download(url.toString(), dir, 'page.json', headers);
          for await (const ev of streamJson(await openMaybeGzip(file))) {
            if (ev.kind === 'header') {
              total = Number(ev.value.totalResults ?? 0);
              continue;
            }
            count++;
            try {
              if (!isObj(ev.value)) throw new Error('entry is not an object');
              items.push({ kind: 'record', record: nvdCveToRecord(ev.value.cve) });
            } catch (e) {
              items.push({ kind: 'error', file: url.toString(), record: `#${startIndex + ev.index}`, message: e instanceof Error ? e.message : String(e) });
            }
          }
        });
        yield* items;
        this.options.log?.(`NVD ${startIndex + count}/${total}`);
        if (count === 0) break;
        startIndex += count;
      }
      yield { kind: 'cursor', cursor: (window ? window[1] : end).toISOString() };
    }
  }
}
