// The content-addressed analysis cache (issue #15): what an analysis found in a file or an image, kept by the
// caller (the service keeps it per organisation in its database, `firmscope scan` in a local file) and reused by
// a later scan with the same input. The engine only sees the AnalysisCache interface: string keys to JSON strings.
//
// Invalidation is by construction: every key starts with the engine digest (engine-digest.ts), a hash of the
// engine's own code and data (its source or compiled folder, the built-in YARA rules and the tables), so a change
// of code, signatures or rules changes every key and old entries are simply never asked for again (the store
// evicts them). Each facet adds what else its output depends on (the scan's custom rules, the limits, the path).
import { basename } from 'node:path';
import { engineDigest } from './engine-digest.js';
import { sha256Hex } from './hash.js';
import type { EngineFinding, FileNode } from './types.js';
import type { StoredContent, StoredFormMemo } from './unpack/file-reuse.js';

/** A key-value store of JSON strings; `get` answers only the keys it has. */
export interface AnalysisCache {
  get(keys: readonly string[]): Promise<Map<string, string>>;
  put(entries: ReadonlyArray<readonly [key: string, value: string]>): Promise<void>;
}

/** How much of a scan came from the cache (ScanSummary.cache). */
export interface CacheStats {
  /** Whether the whole analysis of the image was reused. */
  image: 'hit' | 'miss';
  /** Per-file results (one file in one analyzer) taken from the cache, and computed and stored. */
  filesReused: number;
  filesAnalysed: number;
}

/** One key from its parts (facet, digests, hash, path): a SHA-256, so keys have one length whatever the path. */
export function cacheKey(...parts: string[]): string {
  // each part followed by a NUL, hashed in one call (a scan makes tens of thousands of keys)
  return sha256Hex(`${parts.join('\0')}\0`);
}

/** One facet's cached values for a set of files, looked up in one batch. */
export interface FacetLookup<T> {
  /** The cached value of this file, or undefined (not cached, or the file has no SHA-256); counted as reused. */
  get(node: FileNode): T | undefined;
  /** Whether the cache holds this file's value (not counted: for a stage deciding ahead what to compute). */
  has(node: FileNode): boolean;
  /** Keeps the value computed for this file; written when the scan ends. */
  put(node: FileNode, value: T): void;
}

const NO_LOOKUP: FacetLookup<never> = { get: () => undefined, has: () => false, put: () => {} };

/** One file's cached values by facet and context, each a JSON string (parsed anew for every stage that asks). */
type FileRecord = Record<string, string>;

/**
 * The per-file side of the cache for one scan: analyzers look their facet up for all their files at once, and
 * the values they compute are kept until the scan has finished, then written in one batch.
 *
 * A file's facets share one row (its record), not a row each: a cold scan of the bench image wrote 40,000 rows
 * (a stage's or weakness rule's answer for each file, most of them empty), and SQLite took 0.6 s for them at the
 * scan's end, on one core. The first lookup of a file loads its record; the stages after it find it loaded.
 * A facet computed here is added to the record as it was loaded, and the record is written whole (two scans
 * adding different facets to one file at once may keep only one's: the other is computed again next time).
 */
export class FileFacetCache {
  /** Entries to write besides the file records (the unpacker's memos: storedFormMemo). */
  readonly pending: Array<[string, string]> = [];
  filesReused = 0;
  filesAnalysed = 0;
  /** Records loaded so far by record key (an empty one for a file the cache did not have). */
  private readonly records = new Map<string, FileRecord>();
  /** Loads in flight, by record key (one batch each). */
  private readonly loading = new Map<string, Promise<void>>();
  /** Records with facets computed in this scan, by record key. */
  private readonly changed = new Map<string, FileRecord>();
  /** Each file's record key, made once (a scan asks for it in every stage). */
  private readonly keys = new WeakMap<FileNode, string>();

  constructor(
    private readonly cache: AnalysisCache,
    private readonly engine = engineDigest(),
  ) {}

  /**
   * The record key holds the file's content (SHA-256), its path inside its filesystem (findings name it and
   * fingerprints hash it) and its file name, but not its path in the extracted tree, which starts with the image's
   * name and the container's offsets and so differs between two versions of a firmware: the analyzers set it anew
   * on the value they get back (`restamp`). Undefined for a file without a SHA-256.
   */
  private keyOf(node: FileNode): string | undefined {
    if (!node.sha256) return undefined;
    let key = this.keys.get(node);
    if (key === undefined) {
      key = cacheKey('file', this.engine, node.sha256, node.fsPath, basename(node.path), node.depth === 0 ? 'image' : 'inner');
      this.keys.set(node, key);
    }
    return key;
  }

  /** Loads the records of these keys that are neither loaded nor loading, in one batch. */
  private async load(keys: readonly string[]): Promise<void> {
    const wanted = [...new Set(keys.filter((key) => !this.records.has(key) && !this.loading.has(key)))];
    if (wanted.length) {
      // a cache that fails to answer is a miss: it costs time, never the result
      const batch = this.cache.get(wanted).catch(() => new Map<string, string>()).then((found) => {
        for (const key of wanted) {
          this.records.set(key, parseRecord(found.get(key)));
          this.loading.delete(key);
        }
      });
      for (const key of wanted) this.loading.set(key, batch);
    }
    await Promise.all(keys.map((key) => this.loading.get(key)));
  }

  /** `context` is everything but the file that the facet's output depends on (rules, limits). */
  async lookup<T>(facet: string, context: string, nodes: readonly FileNode[]): Promise<FacetLookup<T>> {
    // the context as a digest: it may hold any character (the rule set's is joined with NULs), and PostgreSQL's
    // text refuses NUL, and with it the whole batch (the image's snapshot included)
    const field = `${facet}|${sha256Hex(context).slice(0, 16)}`;
    await this.load(nodes.map((node) => this.keyOf(node)).filter((k): k is string => k !== undefined));
    const valueOf = (node: FileNode): string | undefined => {
      const key = this.keyOf(node);
      return key === undefined ? undefined : this.records.get(key)?.[field];
    };
    return {
      get: (node) => {
        const value = valueOf(node);
        if (value === undefined) return undefined;
        this.filesReused++;
        return JSON.parse(value) as T;
      },
      has: (node) => valueOf(node) !== undefined,
      put: (node, value) => {
        const key = this.keyOf(node);
        if (key === undefined) return;
        this.filesAnalysed++;
        let changed = this.changed.get(key);
        if (!changed) this.changed.set(key, (changed = {}));
        changed[field] = JSON.stringify(value);
      },
    };
  }

  /** What the scan writes: the unpacker's memos and each file record it added to, whole. */
  entries(): Array<[string, string]> {
    const out = [...this.pending];
    for (const [key, added] of this.changed) out.push([key, formatRecord({ ...this.records.get(key), ...added })]);
    return out;
  }
}

/**
 * A record as stored: each field, U+0001, its JSON value, U+0002 between fields. JSON text never holds those two
 * characters unescaped, so the row splits without parsing its values, and each value is parsed only when a stage
 * asks for it (a record in JSON would parse all of them at once, and each again as its stage's string).
 */
const FIELD_END = '\u0001';
const VALUE_END = '\u0002';

function formatRecord(record: FileRecord): string {
  return Object.entries(record).map(([field, value]) => `${field}${FIELD_END}${value}`).join(VALUE_END);
}

/** A stored record, or an empty one for a value that is absent or not a record (a key's other use, a broken row). */
function parseRecord(value: string | undefined): FileRecord {
  const record: FileRecord = {};
  if (!value) return record;
  for (const part of value.split(VALUE_END)) {
    const at = part.indexOf(FIELD_END);
    if (at < 0) return {};
    record[part.slice(0, at)] = part.slice(at + 1);
  }
  return record;
}

/**
 * The unpacker's memo of which stored form (a SquashFS file's compressed blocks) decodes to which content, in the
 * same cache: looked up once per filesystem, written with the scan's other entries.
 */
export function storedFormMemo(cache: AnalysisCache, files: FileFacetCache, engine = engineDigest()): StoredFormMemo {
  const keyOf = (key: string) => cacheKey('stored-form', engine, key);
  return {
    async lookup(keys) {
      const found = keys.length ? await cache.get(keys.map(keyOf)) : new Map<string, string>();
      const out = new Map<string, StoredContent>();
      for (const key of keys) {
        const value = found.get(keyOf(key));
        if (value !== undefined) out.set(key, JSON.parse(value) as StoredContent);
      }
      return out;
    },
    remember(key, content) {
      files.pending.push([keyOf(key), JSON.stringify(content)]);
    },
  };
}

/**
 * Cached findings of one file, with their occurrences moved to its path in this tree (the cache keeps what that
 * path does not change: fingerprints hash the path inside the filesystem). Undefined stays undefined.
 */
export function findingsAt(cached: EngineFinding[] | undefined, path: string): EngineFinding[] | undefined {
  for (const occurrence of (cached ?? []).flatMap((f) => f.occurrences ?? [])) occurrence.path = path;
  return cached;
}

/** The facet lookup of an analyzer: a no-op when the scan has no cache. */
export function facetLookup<T>(cache: FileFacetCache | undefined, facet: string, context: string, nodes: readonly FileNode[]): Promise<FacetLookup<T>> {
  return cache ? cache.lookup<T>(facet, context, nodes) : Promise.resolve(NO_LOOKUP);
}
