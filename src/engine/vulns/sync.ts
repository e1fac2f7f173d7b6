// Fetches the public feeds: NVD CVE API 2.0 (paged by lastModified window, optional API key, within NVD's
// published rate limits, resumable from a lastModStartDate cursor; the first full download resumable from its
// last committed page), the CISA KEV catalog and the FIRST EPSS CSV.
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
   * NVD records page by page, from where the stored cursor (parseNvdCursor) says the last sync stopped, to now.
   * Each page says what to store as the cursor once its records are committed (nothing for a page in the middle
   * of a lastModified window: records modified again leave the window and shift the offsets of the rest, so a
   * window is only ever resumed from its start).
   */
  async *nvd(cursor: string | undefined): AsyncGenerator<NvdPage> {
    const now = (this.options.now ?? (() => new Date()))().toISOString();
    const saved = cursor === undefined ? undefined : parseNvdCursor(cursor);
    let first: NvdPosition | undefined;
    let windowsFrom: string;
    if (saved === undefined) {
      first = { from: null, to: now, startIndex: 0 }; // the first full download, ending at this sync's start
      windowsFrom = now;
    } else if (typeof saved === 'string') {
      windowsFrom = saved;
    } else {
      first = saved; // the interrupted first download, resumed after its last committed page
      windowsFrom = saved.to;
    }
    if (first) yield* this.nvdQuery(first);
    for (const window of nvdWindows(windowsFrom, now)) yield* this.nvdQuery(window);
  }

  /** The pages of one NVD query, from its position. */
  private async *nvdQuery(position: NvdPosition): AsyncGenerator<NvdPage> {
    const base = this.options.nvdUrl ?? FEED_URLS.nvd;
    const perPage = this.options.resultsPerPage ?? 2000;
    const headers: Record<string, string> = this.options.apiKey ? { apiKey: this.options.apiKey } : {};
    let startIndex = position.startIndex;
    for (;;) {
      const url = new URL(base);
      url.searchParams.set('resultsPerPage', String(perPage));
      url.searchParams.set('startIndex', String(startIndex));
      if (position.from !== null) {
        url.searchParams.set('lastModStartDate', nvdTime(new Date(position.from)));
        url.searchParams.set('lastModEndDate', nvdTime(new Date(position.to)));
      }
      const items: FeedItem[] = [];
      let total = Infinity;
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
      startIndex += count;
      this.options.log?.(`NVD ${startIndex}/${total}`);
      const done = count === 0 || startIndex >= total;
      if (done) {
        yield { items, cursor: position.to };
        return;
      }
      yield { items, ...(position.from === null ? { cursor: JSON.stringify({ ...position, startIndex }) } : {}) };
    }
  }
}

/** One page of NVD records and, when set, the cursor to store once they are all committed. */
export interface NvdPage {
  items: FeedItem[];
  cursor?: string;
}

/**
 * A position inside one NVD query. While the first full download is unfinished it is stored as JSON in the feed
 * cursor; once a query finishes, the cursor is its `to` time: the lastModStartDate of the next sync.
 */
export interface NvdPosition {
  /** lastModStartDate of the query; null for the first full download (no date filter). */
  from: string | null;
  /** lastModEndDate of the query; for the full download, the time it began. */
  to: string;
  /** Records of the query already committed: the next page starts here. */
  startIndex: number;
}

// Only the full download is stored as a position. Its offsets stay valid as long as NVD keeps the order of an
// unfiltered listing and adds new records at its end (records are never deleted, only rejected); anything
// modified meanwhile is fetched again by the windows after `to`.

const isTime = (v: unknown): v is string => typeof v === 'string' && !Number.isNaN(Date.parse(v));

/** A stored NVD cursor: the time the last finished query ended, or the position inside an unfinished one. */
export function parseNvdCursor(cursor: string): string | NvdPosition {
  if (!cursor.startsWith('{')) {
    if (!isTime(cursor)) throw new Error(`NVD sync cursor ${cursor}: expected an ISO 8601 time`);
    return cursor;
  }
  let p: unknown;
  try {
    p = JSON.parse(cursor);
  } catch {
    p = undefined;
  }
  if (!isObj(p) || p.from !== null || !isTime(p.to) || !Number.isInteger(p.startIndex) || (p.startIndex as number) < 0) {
    throw new Error(`NVD sync cursor ${cursor}: expected {"from":null,"to":TIME,"startIndex":N}`);
  }
  return { from: null, to: p.to, startIndex: p.startIndex as number };
}

/** The cursor as `vulndb status` prints it. */
export function describeNvdCursor(cursor: string): string {
  try {
    const c = parseNvdCursor(cursor);
    if (typeof c === 'string') return c;
    return `first download interrupted after ${c.startIndex} records (resumes there, then from ${c.to})`;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** lastModified windows of at most NVD_MAX_WINDOW_DAYS covering [from, end). */
function nvdWindows(from: string, end: string): NvdPosition[] {
  const windows: NvdPosition[] = [];
  const stop = new Date(end).getTime();
  for (let t = new Date(from).getTime(); t < stop; t += NVD_MAX_WINDOW_DAYS * DAY) {
    windows.push({ from: new Date(t).toISOString(), to: new Date(Math.min(stop, t + NVD_MAX_WINDOW_DAYS * DAY)).toISOString(), startIndex: 0 });
  }
  return windows;
}
