// The recursive unpacking driver (unblob's processing loop): for every file it finds the chunks of known formats
// (chunks.ts), records the gaps as unknown chunks, extracts each chunk through a DirectorySink into
// `<path>_extract/` (a chunk that is the whole file) or `<path>_extract/<start>-<end>.<handler-id>/` (a carved
// chunk), and recurses into every extracted file. Limits are one Budget for the whole image, and hitting one is
// recorded as a 'limit' problem: the depth and byte limits stop only their branch (the sink drops a file that does
// not fit in the bytes left, and the rest goes on while budget remains); the file count and the deadline stop
// the whole extraction. Everything extracted so far is kept. A full disk (ENOSPC, EDQUOT) is not a limit: it
// fails the whole unpacking with a DiskFullError, as what is on disk would no longer be the image's content.
import { copyFile, link, mkdir, realpath, stat, writeFile } from 'node:fs/promises';
import { basename, join, posix } from 'node:path';
import { DiskFullError, diskFullError } from '../errors.js';
import { detectType } from '../file-type.js';
import { hashFile } from '../hash.js';
import { HEAD_BYTES_KEPT, type FileNode, type Problem, type UnknownChunk } from '../types.js';
import { selectChunks, type AcceptedChunk } from './chunks.js';
import type { Handler, Reader } from './handler.js';
import { Budget, resolveLimits, type Limits } from './limits.js';
import { BufferReader, FileReader } from './reader.js';
import { handlers as registeredHandlers } from './registry.js';
import type { FileReuse } from './file-reuse.js';
import { SignatureScanner } from './scanner.js';
import { DirectorySink, type SinkEntry } from './sink.js';
import { appendBranches, branchOf, inBranches, limiter, recordExtractError, recordLimit, type State } from './driver-state.js';

export interface UnpackProgress {
  phase: string;
  /** 0..100, from how far the image itself has been worked through. */
  percent: number;
}

export interface UnpackOptions {
  limits?: Partial<Limits>;
  signal?: AbortSignal;
  onProgress?: (p: UnpackProgress) => void;
  /** The handlers to use; defaults to the registry. Tests pass their own. */
  handlers?: readonly Handler[];
  /** The image's own file name, for the root node (default: the file name of imagePath, e.g. a stored blob's key). */
  imageName?: string;
  /** The image's SHA-256 when the caller has it already (scan() hashes the image first): not read twice. */
  imageSha256?: string;
  /** Files kept from earlier scans, placed instead of decoded where a handler knows their content (file-reuse.ts). */
  reuse?: FileReuse;
  /**
   * Called with each regular file once it is on disk, while the unpacking goes on (the scan starts work on it). A
   * file may still be listed after a limit stops the extraction, never one that was not kept.
   */
  onFile?: (node: FileNode) => void;
}

export interface UnpackStats {
  durationMs: number;
  /** Extracted nodes (the image itself not counted). */
  filesExtracted: number;
  /** Bytes of the extracted files kept on disk (a dropped or deleted file is not counted). */
  bytesExtracted: number;
  /** Accepted chunks per handler id, in the order of the ids. */
  formats: Record<string, number>;
  /** Bytes of the image itself inside accepted chunks (the rest is unknown data). */
  coveredBytes: number;
}

export interface UnpackResult {
  /** The image (depth 0) first, then every extracted node in extraction order. */
  files: FileNode[];
  unknownChunks: UnknownChunk[];
  problems: Problem[];
  stats: UnpackStats;
  limits: Limits;
  /**
   * The first bytes of extracted files (the sinks' analysis heads, HEADS_BUDGET in all), by node path: the analysis
   * reads them from here instead of opening every file again (FileIndex).
   */
  heads: Map<string, Buffer>;
  /**
   * By container path, the [start, end) ranges of its chunks that an encoded format's handler (Handler.encoded)
   * extracted without error, in offset order: their content is in the extracted files.
   */
  encodedRanges: Map<string, Array<[number, number]>>;
}

/** Name of the node tree written next to the extracted files. */
export const FILES_JSON = 'files.json';

/**
 * Bytes of file heads kept for the analysis (4 KiB each: 4,096 files), bounded as the scan's peak memory is; the
 * heads of files past it are read from disk, as before.
 */
const HEADS_BUDGET = 16 * 1024 * 1024;

/**
 * Extracted files searched and unpacked at once while their chunk is still being extracted: the engine's thread
 * does that work while the decoders' threads decode the next files, instead of all of it after the last one.
 */
const CHILDREN_IN_FLIGHT = 2;

export async function unpack(imagePath: string, outDir: string, options: UnpackOptions = {}): Promise<UnpackResult> {
  const started = Date.now();
  const { size } = await stat(imagePath);
  const limits = resolveLimits(size, options.limits);
  const budget = new Budget(limits, options.signal);
  const state: State = {
    outDir,
    budget,
    scanner: new SignatureScanner(options.handlers ?? registeredHandlers),
    files: [],
    unknownChunks: [],
    problems: [],
    formats: {},
    coveredBytes: 0,
    run: {},
    progress: options.onProgress,
    small: new WeakMap(),
    selections: new WeakMap(),
    heads: new Map(),
    headAllowance: { left: HEADS_BUDGET },
    encodedRanges: new Map(),
    reuse: options.reuse,
    onFile: options.onFile,
  };
  try {
    await mkdir(outDir, { recursive: true });
    const name = rootName(options.imageName ?? basename(imagePath));
    await placeImage(await realpath(imagePath), join(outDir, name));
    const sha256 = options.imageSha256 ?? (await hashFile(imagePath, ['sha256'])).sha256;
    const reader = await FileReader.open(imagePath);
    const head = await reader.read(0, 512).finally(() => reader.close());
    const root: FileNode = { path: name, fsPath: '/' + name, kind: 'file', size, type: detectType(head), sha256, depth: 0, head: keptHead(head) };
    state.files.push(root);
    await processFile(state, root, new Set([sha256]));
    if (options.signal?.aborted) throw options.signal.reason;
    // A handler may have swallowed the sink's DiskFullError; the budget still says why it stopped.
    if (budget.signal.reason instanceof DiskFullError) throw budget.signal.reason;
    if (state.run.stopped) {
      state.problems.push({ source: 'unpack', path: state.files[0]?.path, kind: 'limit', message: `extraction stopped: ${state.run.stopped.message}` });
    }
    await writeFile(join(outDir, FILES_JSON), JSON.stringify(state.files));
  } catch (error) {
    throw diskFullError(error) ?? error;
  } finally {
    budget.dispose();
  }
  options.onProgress?.({ phase: 'unpack', percent: 100 });
  return {
    files: state.files,
    unknownChunks: state.unknownChunks,
    problems: state.problems,
    stats: {
      durationMs: Date.now() - started,
      filesExtracted: state.files.length - 1,
      bytesExtracted: budget.bytes,
      // by handler id: files of a filesystem finish in no fixed order, and so would the formats first met inside them
      formats: Object.fromEntries(Object.entries(state.formats).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      coveredBytes: state.coveredBytes,
    },
    limits,
    heads: state.heads,
    // chunks extracted side by side finish in no fixed order
    encodedRanges: new Map([...state.encodedRanges].map(([path, ranges]) => [path, ranges.sort((a, b) => a[0] - b[0])])),
  };
}

async function processFile(state: State, node: FileNode, ancestry: Set<string>): Promise<void> {
  const chunks = await searchFile(state, node);
  if (chunks) await extractChunks(state, node, ancestry, chunks);
}

/**
 * Finds a file's chunks (or takes those the sink selected while its bytes were in memory) and records its gaps and
 * the search's problems; returns the chunks to extract, or undefined when there is nothing to extract.
 */
async function searchFile(state: State, node: FileNode): Promise<AcceptedChunk[] | undefined> {
  if (state.run.stopped) return undefined;
  let selection = state.selections.get(node);
  // Nothing to extract and nothing left to record: the file need not be opened.
  if (selection && selection.chunks.length === 0 && !selection.limit) {
    state.problems.push(...selection.problems);
    return undefined;
  }
  if (!selection) {
    const reader = await openReader(state, node);
    try {
      selection = await selectChunks(reader, state.scanner, state.budget, node.path);
    } finally {
      await reader.close?.();
    }
  }
  state.problems.push(...selection.problems);
  if (selection.limit) {
    recordLimit(state, selection.limit, node.path);
    return undefined;
  }
  for (const gap of selection.gaps) state.unknownChunks.push({ path: node.path, ...gap });
  if (node.depth === 0) state.coveredBytes = selection.chunks.reduce((sum, { info }) => sum + (info.end - info.start), 0);
  if (selection.chunks.length === 0) return undefined;
  if (node.depth + 1 > state.budget.limits.maxDepth) {
    state.problems.push({
      source: 'unpack',
      path: node.path,
      kind: 'limit',
      message: `depth limit of ${state.budget.limits.maxDepth} reached: ${selection.chunks.length} chunk(s) not extracted`,
    });
    return undefined;
  }
  return selection.chunks;
}

/**
 * Extracts a file's chunks into `<path>_extract`, then the chunks of what came out, and so on down. The files a
 * chunk gives are searched as soon as they are written, beside the rest of the chunk's extraction (the engine's
 * thread searches while the decoders' threads decode), each in a branch of its own; what they hold is extracted
 * once the chunk is done, one file after the other in the chunk's order, so that the folders' names and every list
 * come out as a one-by-one run makes them.
 */
async function extractChunks(state: State, node: FileNode, ancestry: Set<string>, chunks: AcceptedChunk[]): Promise<void> {
  const reader = await openReader(state, node);
  try {
    const extractDir = await uniqueDir(state.outDir, `${node.path}_extract`);
    // Progress is how far the image's own chunks are done, advancing through each chunk's children.
    const report = (chunk: AcceptedChunk, done: number) => {
      if (node.depth !== 0) return;
      const at = chunk.info.start + (chunk.info.end - chunk.info.start) * done;
      const percent = Math.min(99, Math.floor((at / Math.max(1, reader.size)) * 100));
      if (percent <= (state.run.lastPercent ?? -1)) return; // only advances are reported (chunks run side by side)
      state.run.lastPercent = percent;
      state.progress?.({ phase: 'unpack', percent });
    };
    const extractOne = async (branch: State, chunk: AcceptedChunk): Promise<void> => {
      if (branch.run.stopped) return;
      branch.formats[chunk.handler.id] = (branch.formats[chunk.handler.id] ?? 0) + 1;
      const searches = new Map<FileNode, { sub: State; found: Promise<AcceptedChunk[] | undefined> }>();
      const inFlight = limiter(CHILDREN_IN_FLIGHT);
      const children = await extractChunk(branch, reader, node, chunk, extractDir, (child) => {
        if (child.kind !== 'file' || child.size === 0) return;
        state.onFile?.(child);
        const sub = branchOf(branch);
        const found = inFlight(() => searchChild(sub, child, ancestry));
        found.catch(() => undefined); // awaited below, once the chunk is extracted
        searches.set(child, { sub, found });
      });
      report(chunk, children.length === 0 ? 1 : 0);
      // every search ends before anything is extracted or thrown (none goes on reading after a failure)
      const failed = (await Promise.allSettled([...searches.values()].map((s) => s.found))).find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      for (const [index, child] of children.entries()) {
        report(chunk, index / children.length);
        const search = searches.get(child);
        if (!search) continue;
        if (branch.run.stopped) return;
        const found = await search.found;
        try {
          if (found) await extractChunks(search.sub, child, chainOf(ancestry, child), found);
        } finally {
          appendBranches(branch, [search.sub]);
        }
      }
    };
    if (chunks.length === 1) return await extractOne(state, chunks[0]!);
    await inBranches(state, chunks, extractOne);
  } finally {
    await reader.close?.();
  }
}

/** An extracted file's search, in its own branch; a file whose contents are already up the chain is a loop. */
async function searchChild(branch: State, child: FileNode, ancestry: Set<string>): Promise<AcceptedChunk[] | undefined> {
  if (branch.run.stopped) return undefined;
  if (child.sha256 && ancestry.has(child.sha256)) {
    branch.problems.push({ source: 'unpack', path: child.path, kind: 'skipped', message: 'identical content already extracted in this chain (loop)' });
    return undefined;
  }
  return searchFile(branch, child);
}

/** The contents a file's descendants must not repeat: its ancestors' and its own. */
function chainOf(ancestry: Set<string>, child: FileNode): Set<string> {
  const chain = new Set(ancestry);
  if (child.sha256) chain.add(child.sha256);
  return chain;
}

/** A reader of an extracted file: its bytes when the sink kept them all, the file on disk otherwise. */
async function openReader(state: State, node: FileNode): Promise<Reader & { close?(): Promise<void> }> {
  const absolute = join(state.outDir, node.path);
  const small = state.small.get(node);
  return small ? new BufferReader(small, absolute) : await FileReader.open(absolute);
}

/** Extracts one chunk and returns the nodes it produced. */
async function extractChunk(
  state: State,
  reader: Reader,
  node: FileNode,
  { handler, info }: AcceptedChunk,
  extractDir: string,
  onChild?: (child: FileNode) => void,
): Promise<FileNode[]> {
  const whole = info.start === 0 && info.end === reader.size;
  if (!handler.extract && whole) return []; // recognised, nothing inside to take out
  const carveDir = whole || !handler.extract ? extractDir : `${extractDir}/${info.start}-${info.end}.${handler.id}`;
  const root = join(state.outDir, carveDir);
  const preselect = (data: Buffer, path: string) =>
    selectChunks(new BufferReader(data, join(root, path)), state.scanner, state.budget, `${carveDir}/${path}`);
  const sink = new DirectorySink(root, state.budget, { source: handler.id, path: node.path }, preselect, state.reuse, state.headAllowance);
  const payloadDir = handler.kind === 'compression' || !handler.extract ? posix.dirname(node.fsPath) : undefined;
  const nodes = new Map<SinkEntry, FileNode>();
  const nodeOf = (entry: SinkEntry): FileNode => {
    let child = nodes.get(entry);
    if (child) return child;
    child = toNode(entry, carveDir, node, handler, info.start, payloadDir);
    if (entry.kind === 'file' && entry.head && entry.head.length === entry.size) state.small.set(child, entry.head);
    if (entry.analysisHead) state.heads.set(child.path, entry.analysisHead);
    if (entry.selection) state.selections.set(child, entry.selection);
    nodes.set(entry, child);
    return child;
  };
  if (onChild) sink.onFile = (entry) => onChild(nodeOf(entry));
  try {
    if (handler.extract) await handler.extract(reader, info, sink);
    else await sink.copy(`${info.start}-${info.end}.${handler.id}`, reader, info.start, info.end);
    if (handler.extract && (handler.kind === 'compression' || handler.encoded)) {
      const ranges = state.encodedRanges.get(node.path) ?? [];
      ranges.push([info.start, info.end]);
      state.encodedRanges.set(node.path, ranges);
    }
  } catch (error) {
    recordExtractError(state, error, handler, node, info.start);
  }
  state.problems.push(...sink.problems);
  return sink.entries.map((entry) => {
    const child = nodeOf(entry);
    state.files.push(child);
    return child;
  });
}

function toNode(
  entry: SinkEntry,
  dir: string,
  parent: FileNode,
  handler: Handler,
  offset: number,
  payloadDir: string | undefined,
): FileNode {
  const fsPath = payloadDir !== undefined ? posix.join(payloadDir, posix.basename(entry.path)) : '/' + entry.path;
  const node: FileNode = {
    path: `${dir}/${entry.path}`,
    fsPath,
    kind: entry.kind,
    size: entry.size,
    type: entry.kind === 'file' ? detectType(entry.head ?? Buffer.alloc(0)) : entry.kind,
    format: handler.id,
    parent: parent.path,
    offset,
    depth: parent.depth + 1,
  };
  if (entry.sha256) node.sha256 = entry.sha256;
  if (entry.kind === 'file' && entry.head) node.head = keptHead(entry.head);
  const { mode, uid, gid, mtime, meta } = entry.meta;
  if (mode !== undefined) node.mode = mode;
  if (uid !== undefined) node.uid = uid;
  if (gid !== undefined) node.gid = gid;
  if (mtime !== undefined) node.mtime = mtime;
  if (entry.linkTarget !== undefined) node.linkTarget = entry.linkTarget;
  if (meta && Object.keys(meta).length > 0) node.meta = meta;
  return node;
}

/** The first bytes a scan keeps of a file (FileNode.head). */
function keptHead(head: Buffer): string {
  return head.subarray(0, HEAD_BYTES_KEPT).toString('base64');
}

/** `<base>`, or `<base>-2`, `<base>-3`... when an extracted entry already has that name. */
async function uniqueDir(outDir: string, base: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    try {
      await stat(join(outDir, candidate));
    } catch {
      return candidate;
    }
  }
}

function rootName(fileName: string): string {
  const name = basename(fileName).replace(/[\0/]/g, '_');
  return name === '' || name === '.' || name === '..' || name === FILES_JSON ? 'image' : name;
}

/** The image becomes the root node inside outDir: a hard link when possible, a copy otherwise. */
async function placeImage(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch {
    await copyFile(from, to);
  }
}
