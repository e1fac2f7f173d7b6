// The contract every format handler follows (modelled on unblob's Handler): a handler declares its magic
// patterns, validates a candidate and computes the exact end of its chunk, and extracts children through a Sink.
// One file per format; the registry (registry.ts) is a plain list of imported handlers.
import type { Readable } from 'node:stream';
import type { Problem } from '../types.js';
import type { FileReuse, StoredContent } from './file-reuse.js';

export type HandlerKind = 'compression' | 'archive' | 'filesystem' | 'firmware' | 'boot' | 'executable';

export interface HandlerDoc {
  title: string;
  /** Specifications and reference implementations the reader was written from. */
  references: string[];
  limitations?: string[];
}

export interface Magic {
  /** The bytes to look for. */
  bytes: Buffer;
  /** Position of the magic relative to the chunk start (e.g. 0x438 for ext2's superblock magic). Default 0. */
  offset?: number;
}

/** Random access to the bytes of one file on disk; never loads the whole file. */
export interface Reader {
  /** Absolute path of the file being read. */
  readonly path: string;
  readonly size: number;
  /** Reads up to `length` bytes at `offset`; shorter only at end of file. */
  read(offset: number, length: number): Promise<Buffer>;
  /** Reads exactly `length` bytes at `offset` or throws FormatError('truncated ...'). */
  readExact(offset: number, length: number): Promise<Buffer>;
  /** A stream of bytes [start, end) (end defaults to the file size), read in bounded blocks. */
  stream(start: number, end?: number): Readable;
  /**
   * As read(), synchronously, into a buffer shared by every such read on the thread: the bytes are valid only until
   * the next one, so the caller must be done with them before it awaits anything (searches, checksums and hashes,
   * which keep nothing). Optional: a reader without it is read with read().
   */
  readTransient?(offset: number, length: number): Buffer;
}

/** What the driver passes to chunk(): the scan's abort signal and how many bytes a count-only decode may produce. */
export interface ChunkContext {
  signal: AbortSignal;
  /** Remaining extraction budget in bytes: a count-only decode that would exceed it throws LimitError('bytes'). */
  maxOutput: number;
}

/**
 * A chunk's metadata. A handler with its own metadata declares it as a type alias (an interface has no implicit
 * index signature, so it would not fit here) and is typed Handler<ItsMeta> end to end: chunk() returns it and
 * extract() receives it, with no cast.
 */
export type ChunkMeta = Record<string, unknown>;

/** A validated chunk: the exact byte range [start, end) of one instance of the format. */
export interface ChunkInfo<Meta extends ChunkMeta = ChunkMeta> {
  start: number;
  end: number;
  /** Facts the extractor needs again or the result should show (header fields, names). */
  meta?: Meta;
}

export interface EntryMeta {
  mode?: number;
  uid?: number;
  gid?: number;
  mtime?: number;
  /** Format-specific facts kept on the FileNode (UEFI GUID, UI name, load address, ...). */
  meta?: Record<string, unknown>;
}

/**
 * A file an earlier scan may have extracted (see Sink.reuse): placed from the store when the content of its stored
 * form is known, else decoded, and then remembered for the next scan.
 */
export interface ReusableFile {
  /** The key of its stored form (its compression, sizes and stored bytes: stored-forms.ts), or of its content (contentKey). */
  readonly key: string;
  /** What an earlier scan found this stored form to decode to, if any (its `tail` already checked to match). */
  readonly known?: StoredContent;
  /** SHA-256 of the part of the file the key does not cover (StoredContent.tail), remembered with it. */
  readonly tail?: string;
  /** Other keys of the same content (a small file's piece of its fragment block), remembered with it. */
  readonly aliases?: readonly string[];
  readonly size: number;
  /**
   * The file's bytes and their SHA-256, when the handler holds them anyway (a file in a decoded fragment, hashed for
   * its key): a placed file's head is taken from them, a new one is written from them without hashing it again.
   */
  readonly content?: { bytes: Buffer; sha256: string };
  decoded(): Readable | AsyncIterable<Buffer>;
}

export type FileData = Buffer | Readable | AsyncIterable<Buffer> | ReusableFile;

/**
 * Where handlers put what they extract. Paths are relative to the chunk's output folder and '/'-separated;
 * the sink confines them (no '..', no absolute paths, no NUL), counts files and bytes against the limits,
 * records links and special files without creating or following them, and turns violations into problems.
 */
export interface Sink {
  /** Writes a regular file from a buffer or a stream. Resolves when it is on disk. */
  file(path: string, data: FileData, meta?: EntryMeta): Promise<void>;
  /** Writes a regular file from a byte range of a reader, streamed (no copy of the range into memory). */
  copy(path: string, reader: Reader, start: number, end: number, meta?: EntryMeta): Promise<void>;
  dir(path: string, meta?: EntryMeta): Promise<void>;
  /**
   * Records many folders at once, made concurrently off the calling thread (a filesystem's whole tree, known before
   * its files): resolves when all are made or their problems recorded. A file written into one waits for it.
   */
  dirs(entries: ReadonlyArray<readonly [path: string, meta?: EntryMeta]>): Promise<void>;
  symlink(path: string, target: string, meta?: EntryMeta): void;
  hardlink(path: string, target: string, meta?: EntryMeta): void;
  special(path: string, kind: 'device' | 'fifo' | 'socket', meta?: EntryMeta): void;
  /** Records a problem found while extracting (the handler goes on with the rest). */
  problem(kind: Problem['kind'], message: string, offset?: number): void;
  /** Aborted on deadline or cancellation: long loops should check it. */
  readonly signal: AbortSignal;
  /** Files kept from earlier scans, when the scan has a store of them: a handler may pass ReusableFile data. */
  readonly reuse?: FileReuse;
}

export interface Handler<Meta extends ChunkMeta = ChunkMeta> {
  /** Kebab-case id, also the FileNode.format of what it extracts: 'gzip', 'squashfs-v4', 'uefi-fv'. */
  id: string;
  kind: HandlerKind;
  doc: HandlerDoc;
  magics: Magic[];
  /** Short or weak magics: only try at offset 0 of a file, never while carving. */
  onlyAtStart?: boolean;
  /** Resolves overlapping candidates: the higher wins. Default 50. */
  confidence?: number;
  /**
   * The chunk's content is stored encoded (compressed) and all of it is in the extracted files, which the analysis
   * reads decoded: analysers that look for byte patterns skip the chunk's own bytes in the container (the driver
   * lists such chunks in UnpackResult.encodedRanges). True of every 'compression' handler without saying so.
   */
  encoded?: boolean;
  /**
   * Validates the candidate whose chunk starts at `start` and returns its exact extent, or null for a false
   * positive (quiet). Throwing FormatError records a corrupt chunk with its reason; any other exception is
   * recorded as a handler bug. Either way the scan goes on.
   */
  chunk(reader: Reader, start: number, ctx?: ChunkContext): Promise<ChunkInfo<Meta> | null>;
  /**
   * Extracts the chunk's children. Compression handlers write one payload file; containers write a tree.
   * Absent for formats that are only recognised (their chunk is kept as is).
   */
  extract?(reader: Reader, chunk: ChunkInfo<Meta>, sink: Sink): Promise<void>;
}

/** A configured limit was reached (depth, bytes, files, time). */
export class LimitError extends Error {
  override name = 'LimitError';
  constructor(
    readonly limit: 'depth' | 'bytes' | 'files' | 'time' | 'ratio',
    message: string,
  ) {
    super(message);
  }
}
