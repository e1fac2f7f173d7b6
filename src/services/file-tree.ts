// The extracted file tree of a finished scan, one directory at a time, from the scan's result document.
import type { FileNode } from '../engine/types.js';
import { NotFoundError, NotReadyError } from '../errors.js';
import type { BlobStore } from '../store/blob-store.js';
import type { Scan } from '../store/scan.repository.js';
import { readResultDocument } from './result-document.js';

export { HEAD_BYTES_KEPT } from '../engine/types.js';

export interface TreeEntry {
  path: string;
  /** The node at this path; absent for a directory that only appears in the paths of what it holds. */
  node?: FileNode;
  /** Nodes anywhere below this path. */
  descendants: number;
}

/**
 * The entries directly inside `dir` ('' for the top: the image itself), containers first then by name, with how
 * many nodes lie below each; a page of at most `limit` from `offset`.
 */
export async function listFileTree(blobs: BlobStore, scan: Scan, dir: string, offset: number, limit: number): Promise<{ total: number; entries: TreeEntry[] }> {
  const files = await treeOf(blobs, scan);
  const prefix = dir === '' ? '' : `${dir.replace(/\/+$/, '')}/`;
  const byPath = new Map(files.map((node) => [node.path, node]));
  const entries = new Map<string, TreeEntry>();
  for (const node of files) {
    if (!node.path.startsWith(prefix) || node.path === dir) continue;
    const rest = node.path.slice(prefix.length);
    const slash = rest.indexOf('/');
    const path = prefix + (slash < 0 ? rest : rest.slice(0, slash));
    const entry = entries.get(path) ?? { path, ...(byPath.has(path) ? { node: byPath.get(path)! } : {}), descendants: 0 };
    if (slash >= 0) entry.descendants++;
    entries.set(path, entry);
  }
  const sorted = [...entries.values()].sort((a, b) => Number(b.descendants > 0) - Number(a.descendants > 0) || a.path.localeCompare(b.path));
  return { total: sorted.length, entries: sorted.slice(offset, offset + limit) };
}

export interface FileHead {
  path: string;
  size: number;
  /** The file's first bytes (up to HEAD_BYTES_KEPT); absent when the scan kept none (scans before they were kept). */
  bytes?: Buffer;
}

/** The first bytes the scan kept of the file at tree path `path`; NotFoundError when the tree has no such file. */
export async function fileHead(blobs: BlobStore, scan: Scan, path: string): Promise<FileHead> {
  const node = (await treeOf(blobs, scan)).find((n) => n.path === path);
  if (!node || node.kind !== 'file') throw new NotFoundError(`scan ${scan.id} extracted no file at '${path}'`);
  return { path: node.path, size: node.size, ...(node.head !== undefined ? { bytes: Buffer.from(node.head, 'base64') } : {}) };
}

async function treeOf(blobs: BlobStore, scan: Scan): Promise<FileNode[]> {
  if (scan.state !== 'done' || !scan.resultBlobKey) throw new NotReadyError(`scan ${scan.id} is '${scan.state}'; its file tree is available once it is done`);
  return (await readResultDocument(blobs, scan.resultBlobKey)).files;
}
