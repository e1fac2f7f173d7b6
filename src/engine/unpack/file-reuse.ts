// What the unpacker reuses of earlier scans' extractions (issue #15): the store of extracted files by content
// (file-store.ts) and the memo of which stored form decodes to which content (kept in the analysis cache). A
// handler keys each file by its stored form (a range copied as it is, an archive's member, is keyed by its content
// by the sink); the sink places a known one from the store and remembers a new one.
import { closeSync, fstatSync, openSync, rmSync, statSync } from 'node:fs';
import { readAt } from '../file-read.js';
import type { ExtractedFileStore } from './file-store.js';

/** What a stored form decodes to: the content, and whether the unpacker found nothing to unpack inside it. */
export interface StoredContent {
  sha256: string;
  /** Searched for chunks when it was decoded, and none (nor any problem) found: a placed copy is not searched again. */
  chunkFree: boolean;
  /** SHA-256 of the part not in the stored form's key (a SquashFS file's tail in a shared fragment), if any. */
  tail?: string;
}

/** Which content each stored form decodes to: the analysis cache's side (analysis-cache.ts storedFormMemo()). */
export interface StoredFormMemo {
  /** The content of each stored-form key the memo knows. */
  lookup(keys: readonly string[]): Promise<Map<string, StoredContent>>;
  /** Remembers what a stored form decoded to (kept when the scan's cache entries are written). */
  remember(key: string, content: StoredContent): void;
}

/**
 * The key of a file known by its content alone (a SquashFS file that lives wholly in a fragment block, an archive's
 * member): what the memo keeps under it is whether a search of that content found chunks.
 */
export function contentKey(sha256: string): string {
  return `content\0${sha256}`;
}

export class FileReuse {
  /** Files placed from the store. */
  placed = 0;

  constructor(
    private readonly store: ExtractedFileStore,
    private readonly memo: StoredFormMemo,
  ) {}

  lookup(keys: readonly string[]): Promise<Map<string, StoredContent>> {
    // a memo that fails to answer is a miss: the files are decoded, as without it
    return this.memo.lookup(keys).catch(() => new Map<string, StoredContent>());
  }

  /**
   * Places a known file from the store; false when the store no longer holds it, holds another size under its name
   * (a damaged entry, not this content) or fails: then nothing is left at the target, and the file is decoded.
   */
  place(content: StoredContent, size: number, target: string): boolean {
    return this.placeAnd(content, target, () => (statSync(target).size === size ? true : undefined)) ?? false;
  }

  /**
   * As place(), for a caller without the file's bytes: gives its first `headBytes` bytes, read through the same
   * descriptor that checks the size (a stat, then an open for the read, walk the path twice: 77-86 against 61-69
   * ms over the bench tree's 6,159 files in the page cache, 2026-12-01).
   */
  placeAndRead(content: StoredContent, size: number, target: string, headBytes: number): Buffer | undefined {
    return this.placeAnd(content, target, () => {
      const fd = openSync(target, 'r');
      try {
        return fstatSync(fd).size === size ? readAt(fd, 0, headBytes) : undefined;
      } finally {
        closeSync(fd);
      }
    });
  }

  /** Places the file and runs `check` on it; anything but a value (or a failure) removes it again. */
  private placeAnd<T>(content: StoredContent, target: string, check: () => T | undefined): T | undefined {
    try {
      if (!this.store.place(content.sha256, target)) return undefined;
      const checked = check();
      if (checked !== undefined) {
        this.placed++;
        return checked;
      }
    } catch {
      // a store that cannot give the file (refused, full, gone meanwhile): it is decoded instead, as without one
    }
    rmSync(target, { force: true });
    return undefined;
  }

  /** A file just decoded and written at `path` (`size` bytes): kept in the store and remembered under its stored form. */
  decoded(key: string, content: StoredContent, path: string, size: number): void {
    this.store.keep(content.sha256, path, size);
    this.memo.remember(key, content);
  }

  /** Remembers what a stored form decodes to, with no file to keep (a SquashFS file's tail, another key of a file). */
  remember(key: string, content: StoredContent): void {
    this.memo.remember(key, content);
  }
}
