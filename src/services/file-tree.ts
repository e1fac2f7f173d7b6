// The extracted file tree of a finished scan, one directory at a time, from the scan's result document.
import type { FileNode } from '../engine/types.js';
import { NotReadyError } from '../errors.js';
import type { BlobStore } from '../store/blob-store.js';
import type { Scan } from '../store/scan.repository.js';
import { readResultDocument } from './result-document.js';

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
  if (scan.state !== 'done' || !scan.resultBlobKey) throw new NotReadyError(`scan ${scan.id} is '${scan.state}'; its file tree is available once it is done`);
  const { files } = await readResultDocument(blobs, scan.resultBlobKey);
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
