// How analyzers (identifiers, crypto detectors, rules) see the extracted tree: select by glob or predicate,
// look up by path, read contents. The same interface serves a scan's extraction folder and a test fixture
// folder, so analyzers run identically on both.
import { closeSync, createReadStream, openSync, readFileSync } from 'node:fs';
import { lstat, readFile, readdir, readlink } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import picomatch from 'picomatch';
import { readAt, readFileRange, type ReadScratch } from './file-read.js';
import type { FileNode } from './types.js';

/** Files up to this size are read whole once and kept for every analyzer (see FileIndex.read). */
export const MAX_KEPT_FILE = 4 * 1024 * 1024;
/**
 * Default budget of file bytes held in memory (kept contents and the unpacker's heads): the small files of most
 * images fit; a larger tree keeps its first ones.
 */
export const DEFAULT_KEPT_BYTES = 96 * 1024 * 1024;
/** Files up to this size that are not kept are still read in one synchronous call (see FileIndex.keep). */
const SYNC_READ_MAX = 64 * 1024 * 1024;

export class FileIndex {
  private readonly byPath = new Map<string, FileNode>();
  private readonly byFsPath = new Map<string, FileNode[]>();
  /**
   * Contents of small files, read once and shared by every analyzer (each used to read every file again, and a
   * read costs an open, a stat and a close). Filled first come, first kept, never evicted: the analyzers sweep the
   * files in the same order, so an LRU would evict each file just before the next sweep needs it.
   */
  private readonly kept = new Map<string, Promise<Buffer>>();
  private keptBytes = 0;
  private readonly keptBudget: number;
  /** Regular files in node order. */
  private readonly fileList: FileNode[];
  /** First bytes of files, by path, that the unpacker had in memory (UnpackResult.heads). */
  private readonly heads: ReadonlyMap<string, Buffer>;
  private readonly encoded: ReadonlyMap<string, ReadonlyArray<readonly [number, number]>>;

  constructor(
    /** Absolute folder that FileNode.path values are relative to. */
    readonly root: string,
    readonly nodes: FileNode[],
    options: {
      keptBytes?: number;
      heads?: ReadonlyMap<string, Buffer>;
      /** UnpackResult.encodedRanges (in offset order) */
      encodedRanges?: ReadonlyMap<string, ReadonlyArray<readonly [number, number]>>;
    } = {},
  ) {
    this.heads = options.heads ?? new Map();
    // the heads count against the budget of file bytes held (a scan's peak memory is bounded by both together)
    let headBytes = 0;
    for (const head of this.heads.values()) headBytes += head.length;
    this.keptBudget = Math.max(0, (options.keptBytes ?? DEFAULT_KEPT_BYTES) - headBytes);
    this.encoded = options.encodedRanges ?? new Map();
    this.fileList = nodes.filter((n) => n.kind === 'file');
    for (const node of nodes) {
      this.byPath.set(node.path, node);
      const list = this.byFsPath.get(node.fsPath);
      if (list) list.push(node);
      else this.byFsPath.set(node.fsPath, [node]);
    }
  }

  /** Indexes a plain folder (fixtures, `firmscope scan` of a directory): every entry becomes a node. */
  static async fromDirectory(root: string): Promise<FileIndex> {
    const nodes: FileNode[] = [];
    async function walk(dir: string): Promise<void> {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const abs = join(dir, entry.name);
        const path = relative(root, abs).split(sep).join('/');
        const st = await lstat(abs);
        const base = { path, fsPath: '/' + path, size: st.size, depth: 1, mode: st.mode & 0o7777, mtime: Math.floor(st.mtimeMs / 1000) };
        if (entry.isSymbolicLink()) {
          nodes.push({ ...base, kind: 'symlink', size: 0, type: 'symlink', linkTarget: await readlink(abs) });
        } else if (entry.isDirectory()) {
          nodes.push({ ...base, kind: 'directory', size: 0, type: 'directory' });
          await walk(abs);
        } else if (entry.isFile()) {
          nodes.push({ ...base, kind: 'file', type: 'data' });
        }
      }
    }
    await walk(root);
    return new FileIndex(root, nodes);
  }

  /** Regular files only. */
  files(): FileNode[] {
    return [...this.fileList];
  }

  get(path: string): FileNode | undefined {
    return this.byPath.get(path);
  }

  /** Nodes whose path inside their filesystem is exactly `fsPath` (e.g. '/etc/openwrt_release'). */
  byFilesystemPath(fsPath: string): FileNode[] {
    return this.byFsPath.get(fsPath) ?? [];
  }

  /** Regular files whose fsPath matches one of the globs (picomatch syntax, e.g. '**\/usr/lib/opkg/status'). */
  glob(...patterns: string[]): FileNode[] {
    const match = globsMatcher(patterns);
    return this.fileList.filter((n) => match(n.fsPath) || match(n.path));
  }

  /**
   * Resolves a symlink inside the same filesystem (same extraction folder), without leaving the tree;
   * returns the target node or undefined when it dangles or loops.
   */
  resolveLink(node: FileNode): FileNode | undefined {
    let current: FileNode | undefined = node;
    for (let hops = 0; current && (current.kind === 'symlink' || current.kind === 'hardlink') && hops < 16; hops++) {
      const target: string = current.linkTarget ?? '';
      const fsTarget: string = target.startsWith('/') ? posix.normalize(target) : posix.normalize(posix.join(posix.dirname(current.fsPath), target));
      const prefix: string = current.path.slice(0, current.path.length - current.fsPath.length + 1);
      current = this.byPath.get(posix.join(prefix, fsTarget.slice(1)));
    }
    return current && current.kind === 'file' ? current : undefined;
  }

  /**
   * The parts of a container that an encoded format (a compressed stream, a SquashFS) occupies, in offset order:
   * their content is in the extracted files, so a byte-pattern search of the container passes over them.
   */
  encodedRanges(node: FileNode): ReadonlyArray<readonly [number, number]> {
    return this.encoded.get(node.path) ?? [];
  }

  absolutePath(node: FileNode): string {
    return join(this.root, node.path);
  }

  /**
   * The whole file. Small files are read once per scan and the same bytes are returned to every caller: callers
   * must not modify them. With `scratch`, a file that is not kept is read into it (see ReadScratch).
   */
  async read(node: FileNode, scratch?: ReadScratch): Promise<Buffer> {
    const kept = this.keep(node);
    if (kept) return kept;
    if (scratch && node.size <= SYNC_READ_MAX) return readFileRange(this.absolutePath(node), 0, node.size, scratch);
    return node.size <= SYNC_READ_MAX ? readFileSync(this.absolutePath(node)) : readFile(this.absolutePath(node));
  }

  /**
   * The file's kept contents, read now if it is small enough and the budget allows; undefined otherwise. A small
   * file is read synchronously: fs/promises' readFile costs an open, a stat, reads and a close, each a round trip
   * through libuv's thread pool, and over the OpenWrt image's 509 small files (10 MB, in the page cache) took 5 to 6
   * times the time and CPU of readFileSync. The engine runs in the CLI or in a scan's own worker thread, never on a
   * thread that serves requests (the unpacker's sink writes small files synchronously for the same reason).
   */
  private keep(node: FileNode): Promise<Buffer> | undefined {
    const kept = this.kept.get(node.path);
    if (kept) return kept;
    if (node.kind !== 'file' || node.size > MAX_KEPT_FILE || this.keptBytes + node.size > this.keptBudget) return undefined;
    let data: Buffer;
    try {
      data = this.wholeHead(node) ?? readFileSync(this.absolutePath(node));
    } catch (error) {
      // A failed read is not kept: the next caller gets its own error. Marked handled here, as a stream() that is
      // never consumed would otherwise leave an unhandled rejection behind (the error still reaches every await).
      const failed = Promise.reject(error as Error);
      failed.catch(() => undefined);
      return failed;
    }
    const reading = Promise.resolve(data);
    this.kept.set(node.path, reading);
    this.keptBytes += node.size;
    return reading;
  }

  /**
   * Reads at most `length` bytes from `offset` (a view of the kept contents for small files: do not modify). Other
   * files are read synchronously (into `scratch` when given), for the reason keep() gives: a parser's many small
   * reads each cost an open, a read and a close, three thread-pool round trips apiece otherwise.
   */
  async readRange(node: FileNode, offset: number, length: number, scratch?: ReadScratch): Promise<Buffer> {
    const kept = this.keep(node);
    if (kept) {
      return rangeOf(await kept, offset, length);
    }
    return readFileRange(this.absolutePath(node), offset, length, scratch);
  }

  /**
   * The first `length` bytes of a file, to decide what to do with it. Not kept: the whole file is read and kept
   * only when a reader wants more of it, which a scan whose analysis of the file comes from the cache may never
   * do (the kept contents when it is kept already: do not modify).
   */
  async head(node: FileNode, length: number): Promise<Buffer> {
    const kept = this.kept.get(node.path);
    if (kept) return rangeOf(await kept, 0, length);
    const known = this.heads.get(node.path);
    if (known && (length <= known.length || known.length === node.size)) return rangeOf(known, 0, length);
    if (length >= node.size) return this.readRange(node, 0, length);
    return readFileRange(this.absolutePath(node), 0, length);
  }

  /**
   * Random access to one file for many reads: the kept contents, or one open descriptor, read synchronously
   * (close() it). Reads return at most `length` bytes from `offset`; kept bytes are shared: do not modify.
   * `readInto` reads the same way, into `scratch` for a file that is not kept (valid until its next use).
   */
  async reader(node: FileNode, scratch?: ReadScratch): Promise<IndexReader> {
    const kept = this.keep(node);
    if (kept) {
      const whole = await kept;
      const read = async (offset: number, length: number) => rangeOf(whole, offset, length);
      return { read, readInto: read, close: async () => {} };
    }
    const fd = openSync(this.absolutePath(node), 'r');
    let open = true;
    const readWith = (into?: ReadScratch) => async (offset: number, length: number) => {
      if (!open) throw new Error(`${node.path}: read after close`);
      return readAt(fd, offset, length, into);
    };
    return {
      read: readWith(),
      readInto: readWith(scratch),
      close: async () => {
        if (open) closeSync(fd);
        open = false;
      },
    };
  }

  /** The unpacker's head of the file when it is the whole file. */
  private wholeHead(node: FileNode): Buffer | undefined {
    const known = this.heads.get(node.path);
    return known && known.length === node.size ? known : undefined;
  }

  stream(node: FileNode): Readable {
    const kept = this.keep(node);
    if (kept) return Readable.from((async function* () { yield await kept; })(), { objectMode: false });
    // `end` bounds each read buffer by the file's size (without it every read allocates the full 1 MiB)
    return createReadStream(this.absolutePath(node), { highWaterMark: 1024 * 1024, end: Math.max(0, node.size - 1) });
  }
}

/** FileIndex.reader's answer. */
export interface IndexReader {
  read(offset: number, length: number): Promise<Buffer>;
  readInto(offset: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

/** Characters that make a glob segment more than a literal name. */
const GLOB_MAGIC = /[*?[\]{}()!+@\\]/;

/**
 * A picomatch matcher for one glob that first compares the path's last segment with the glob's: a path can only
 * match when its name matches the glob's last segment. A glob runs over every file of the tree, twice each (fsPath
 * and path): the full expressions took ~0.1 s of the 64 MB bench image's scan, for ten globs. Globs whose last
 * segment is `**`, that hold braces or parentheses (which may hold a `/`) or that are negated (`!…` matches the
 * names the rest does not) go to picomatch alone.
 */
export function pathMatcher(pattern: string): (path: string) => boolean {
  const full = picomatch(pattern, { dot: true });
  const last = pattern.slice(pattern.lastIndexOf('/') + 1);
  if (last === '' || last.includes('**') || /[{}()]/.test(pattern) || pattern.startsWith('!')) return full;
  const name = GLOB_MAGIC.test(last) ? picomatch(last, { dot: true }) : (segment: string) => segment === last;
  return (path) => name(path.slice(path.lastIndexOf('/') + 1)) && full(path);
}

/** Whether a path matches any of the globs: picomatch(patterns, { dot: true }), each glob through pathMatcher. */
export function globsMatcher(patterns: readonly string[]): (path: string) => boolean {
  const matchers = patterns.map(pathMatcher);
  return (path) => matchers.some((match) => match(path));
}

/** At most `length` bytes of `whole` from `offset`, as a view. */
function rangeOf(whole: Buffer, offset: number, length: number): Buffer {
  const start = Math.min(Math.max(0, offset), whole.length);
  return whole.subarray(start, Math.min(whole.length, start + Math.max(0, length)));
}
