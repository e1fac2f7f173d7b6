// Reads feed files of any supported kind and yields what they hold, one item at a time: vulnerability records
// (NVD API 2.0 pages and single records, CVE JSON 5, OSV), KEV entries, EPSS scores, feed dates, and errors.
// A bad record is reported (file and record) and the rest of the file still comes through; a truncated file
// yields everything before the damage and then one error.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { cve5ToRecord, isCve5 } from './cve5.importer.js';
import { readEpssCsv, type EpssEntry } from './epss.importer.js';
import { isObj, type Obj } from './feed-values.js';
import { openMaybeGzip, streamJson } from './json-stream.js';
import { isKevCatalog, kevCatalogDate, kevEntry, kevEntryDate, type KevEntry } from './kev.importer.js';
import { nvdCveToRecord } from './nvd-api2.importer.js';
import { isOsv, osvToRecord } from './osv.importer.js';
import type { VulnerabilityRecord } from './source.js';

export type FeedName = 'nvd' | 'cve5' | 'osv' | 'kev' | 'epss';

export type FeedItem =
  | { kind: 'record'; record: VulnerabilityRecord }
  | { kind: 'kev'; entry: KevEntry }
  | { kind: 'epss'; entry: EpssEntry }
  /** The date a feed file states about itself (KEV release, EPSS score date, NVD page timestamp). */
  | { kind: 'feed'; feed: FeedName; date: string }
  | { kind: 'error'; file: string; record?: string; message: string };

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Feed files under the given files and folders (folders recursively: *.json, *.csv, optionally .gz). */
export async function* feedFiles(paths: string[]): AsyncGenerator<string> {
  for (const path of paths) {
    const info = await stat(path);
    if (!info.isDirectory()) {
      yield path;
      continue;
    }
    const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const child = join(path, e.name);
      if (e.isDirectory()) yield* feedFiles([child]);
      else if (/\.(json|csv)(\.gz)?$/i.test(e.name)) yield child;
    }
  }
}

function recordOf(value: Obj): { record?: VulnerabilityRecord; kind?: string } {
  if (isObj(value.cve)) return { record: nvdCveToRecord(value.cve) };
  if (isCve5(value)) return { record: cve5ToRecord(value) };
  if (typeof value.id === 'string' && /^CVE-/.test(value.id) && ('lastModified' in value || 'configurations' in value)) {
    return { record: nvdCveToRecord(value) };
  }
  if (isOsv(value)) return { record: osvToRecord(value) };
  return {};
}

function labelOf(value: unknown, index: number): string {
  if (isObj(value)) {
    const id = (isObj(value.cve) ? value.cve.id : undefined) ?? value.cveID ?? value.id
      ?? (isObj(value.cveMetadata) ? value.cveMetadata.cveId : undefined);
    if (typeof id === 'string') return `#${index} ${id}`;
  }
  return `#${index}`;
}

async function* readJsonFeed(file: string): AsyncGenerator<FeedItem> {
  let items = 0;
  let sawKev = false;
  try {
    for await (const ev of streamJson(await openMaybeGzip(file))) {
      if (ev.kind === 'item') {
        items++;
        try {
          if (!isObj(ev.value)) throw new Error('entry is not an object');
          if ('cveID' in ev.value) {
            sawKev = true;
            yield { kind: 'kev', entry: kevEntry(ev.value, kevEntryDate(ev.header)) };
            continue;
          }
          const { record } = recordOf(ev.value);
          if (!record) throw new Error('not an NVD, CVE 5 or OSV record');
          yield { kind: 'record', record };
        } catch (e) {
          yield { kind: 'error', file, record: labelOf(ev.value, ev.index), message: message(e) };
        }
        continue;
      }
      const header = ev.value;
      if (sawKev || isKevCatalog(header)) {
        const date = kevCatalogDate(header);
        if (date) yield { kind: 'feed', feed: 'kev', date };
      } else if (header.format === 'NVD_CVE' && typeof header.timestamp === 'string') {
        yield { kind: 'feed', feed: 'nvd', date: header.timestamp };
      } else if (items === 0) {
        try {
          const { record } = recordOf(header);
          if (!record) throw new Error('not an NVD page or record, CVE 5 record, OSV record or KEV catalog');
          yield { kind: 'record', record };
        } catch (e) {
          yield { kind: 'error', file, record: labelOf(header, 0), message: message(e) };
        }
      }
    }
  } catch (e) {
    yield { kind: 'error', file, message: message(e) };
  }
}

async function* readEpssFeed(file: string): AsyncGenerator<FeedItem> {
  try {
    for await (const line of readEpssCsv(await openMaybeGzip(file))) {
      if (line.kind === 'entry') yield { kind: 'epss', entry: line.entry };
      else if (line.kind === 'date') yield { kind: 'feed', feed: 'epss', date: line.date };
      else yield { kind: 'error', file, record: `line ${line.line}`, message: line.message };
    }
  } catch (e) {
    yield { kind: 'error', file, message: message(e) };
  }
}

/** Everything the given files and folders hold, in file order. */
export async function* readFeeds(paths: string[]): AsyncGenerator<FeedItem> {
  for (const path of paths) {
    try {
      await stat(path);
    } catch (e) {
      yield { kind: 'error', file: path, message: `cannot read: ${message(e)}` };
      continue;
    }
    for await (const file of feedFiles([path])) {
      yield* /\.csv(\.gz)?$/i.test(file) ? readEpssFeed(file) : readJsonFeed(file);
    }
  }
}
