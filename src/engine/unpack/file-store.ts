// Extracted files kept from earlier scans, by content (issue #15: the next firmware version almost free). Two
// versions of a firmware share most of their files, but unpacking the second still decoded every one of them. A
// SquashFS handler that knows, from the stored (compressed) form of a file, which content it decodes to links the
// file from here instead of decoding it (squashfs/stored-forms.ts). The analysis cache remembers which stored form
// gives which content; this store keeps the content itself. Files are hard links where the store and the work
// folder share a filesystem, copies otherwise; the store is trimmed to a byte budget, oldest entries first.
import { appendFileSync, copyFileSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

/** What the unpacker needs of a store of extracted files. */
export interface ExtractedFileStore {
  /** Puts the file with this content at `target` (whose folder exists); false when the store does not hold it. */
  place(sha256: string, target: string): boolean;
  /** Keeps the file just extracted at `path`, whose content has this SHA-256 and size (best effort: never throws). */
  keep(sha256: string, path: string, size: number): void;
}

const SHA256 = /^[0-9a-f]{64}$/;
/** A shard folder of the store's earlier layout. */
const LEGACY_SHARD = /^[0-9a-f]{2}$/;
/** Default budget of a local store: a few firmware versions of a few hundred MB each. */
export const DEFAULT_STORE_BYTES = 2 * 1024 * 1024 * 1024;
/** The store's ledger of its size (see trim()), beside the entries; not an entry itself. */
const LEDGER = '.size';
/** Trims that add to the ledger before one walks the store again and writes its exact size. */
const LEDGER_LINES = 64;

/** What a trim did: the store walked (its files and size, and what was removed), or only its ledger added to. */
export type TrimResult = { walked: true; files: number; bytes: number; removed: number } | { walked: false; bytes: number };

/**
 * A store in a local folder: `<dir>/<sha256>`, one flat folder. It was sharded by the first two hex digits, but a
 * cold scan then made up to 256 shard folders on the engine's thread (ext4 allocates an inode and a block for each:
 * ~0.2 ms of kernel time apiece in perf on this project's machines, more under load), ~60 ms of the OpenWrt image's
 * unpacking; ext4 indexes large folders (dir_index), so a budget's tens of thousands of entries in one folder cost
 * nothing at lookup.
 */
export class LocalFileStore implements ExtractedFileStore {
  /** Whether the folder is known to exist (made at the first file kept). */
  private made = false;
  /** Whether this store made the folder: it held nothing before this store's files. */
  private madeEmpty = false;
  /** Files this store added since its last trim (a file already there adds nothing), and their bytes. */
  private addedSinceTrim = 0;
  private bytesSinceTrim = 0;

  constructor(
    readonly dir: string,
    private readonly maxBytes = DEFAULT_STORE_BYTES,
  ) {}

  place(sha256: string, target: string): boolean {
    if (!SHA256.test(sha256)) return false;
    const source = this.pathOf(sha256);
    try {
      linkOrCopy(source, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    return true;
  }

  keep(sha256: string, path: string, size: number): void {
    if (!SHA256.test(sha256)) return;
    const target = this.pathOf(sha256);
    try {
      if (!this.made) {
        this.madeEmpty = mkdirSync(this.dir, { recursive: true }) !== undefined;
        this.made = true;
      }
      linkOrCopy(path, target);
      this.addedSinceTrim++;
      this.bytesSinceTrim += size;
    } catch {
      // already kept (EEXIST), or the store cannot take it: a later scan decodes the file again
    }
  }

  /**
   * Removes the oldest entries (by the time they were kept) until the store holds at most its budget. Run once a
   * scan has ended, not while one links from the store. Undefined, without walking the store, when this store added
   * no file since its last trim: a rescan adds none. The walk is a stat per entry (~60 ms for the bench image's
   * 7,300 files, more for a store near its budget), so the store keeps a ledger of its size (`.size`: the size its
   * last walk left, then a line per trim of the bytes it added, appended, which concurrent scans may do at once); a
   * trim that keeps the ledger within the budget adds its line instead of walking. The ledger errs high when
   * entries go by other means (the walk comes sooner) and low only when a line is appended to a ledger a walk is
   * replacing; every LEDGER_LINES trims, and whenever it is missing or unreadable, the store is walked and the
   * ledger written anew. A store that others add to is trimmed by them. The shard folders of the earlier layout
   * (`<dir>/<two hex digits>/`), never placed from, are removed.
   */
  trim(): TrimResult | undefined {
    if (this.addedSinceTrim === 0) return undefined;
    const added = this.bytesSinceTrim;
    this.addedSinceTrim = 0;
    this.bytesSinceTrim = 0;
    const ledger = join(this.dir, LEDGER);
    const known = readLedger(ledger) ?? (this.madeEmpty ? { bytes: 0, lines: 0 } : undefined);
    this.madeEmpty = false; // from now on the ledger this trim writes says what the folder holds
    if (known && known.lines < LEDGER_LINES && known.bytes + added <= this.maxBytes) {
      try {
        appendFileSync(ledger, `${added}\n`);
        return { walked: false, bytes: known.bytes + added };
      } catch {
        // a ledger that cannot be written: the store is walked
      }
    }
    const result = this.walk();
    try {
      const temporary = `${ledger}.${process.pid}-${threadId}`;
      writeFileSync(temporary, `${result.bytes}\n`);
      renameSync(temporary, ledger);
    } catch {
      // no ledger: the next trim walks
    }
    return result;
  }

  private walk(): TrimResult & { walked: true } {
    const entries: Array<{ path: string; size: number; kept: number }> = [];
    for (const name of safeList(this.dir)) {
      const path = join(this.dir, name);
      if (LEGACY_SHARD.test(name)) {
        rmSync(path, { recursive: true, force: true });
        continue;
      }
      if (!SHA256.test(name)) continue;
      try {
        const st = statSync(path);
        if (st.isFile()) entries.push({ path, size: st.size, kept: st.mtimeMs });
      } catch {
        // removed meanwhile
      }
    }
    let bytes = entries.reduce((n, e) => n + e.size, 0);
    let removed = 0;
    entries.sort((a, b) => a.kept - b.kept);
    for (const entry of entries) {
      if (bytes <= this.maxBytes) break;
      rmSync(entry.path, { force: true });
      bytes -= entry.size;
      removed++;
    }
    return { walked: true, files: entries.length - removed, bytes, removed };
  }

  private pathOf(sha256: string): string {
    return join(this.dir, sha256);
  }
}

/** A hard link, or a copy where the two paths are on different filesystems (or links are refused). */
function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'EMLINK') throw error;
  }
  copyFileSync(from, to);
  // a copy into the store is an entry kept now (trim() orders by this time)
  const now = new Date();
  utimesSync(to, now, now);
}

/** The ledger's size and line count, or undefined when it is missing or a line is not a byte count. */
function readLedger(path: string): { bytes: number; lines: number } | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'latin1');
  } catch {
    return undefined;
  }
  const lines = text.split('\n').filter((line) => line !== '');
  if (lines.length === 0 || !lines.every((line) => /^\d{1,15}$/.test(line))) return undefined;
  return { bytes: lines.reduce((sum, line) => sum + Number(line), 0), lines: lines.length };
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
