// The walk of a SquashFS tree (3 and 4 alike) from its root inode, depth-first, with what it refuses reported: the
// extraction walks it once, before the first file, and then extracts the entries in the walk's order.
import { FormatError } from '../../../format-error.js';
import type { InodeRef, SquashDirEntry, SquashImage, SquashInode } from './extract.js';

const MAX_DEPTH = 1024;

/** One entry of the tree in walking order; a directory is walked after the entries of its parent. */
export interface TreeEntry {
  path: string;
  /** The inode's key ('block:offset'): an inode reached twice is a hard link. */
  key: string;
  inode: SquashInode;
}

/**
 * Walks the directory tree depth-first from the root inode, yielding every entry whose name and inode are sound;
 * `report` gets each refused entry, unreadable inode or directory, directory loop and over-deep directory. A root
 * that is not a readable directory throws.
 */
function* walkTree(img: SquashImage, report: (message: string) => void): Generator<TreeEntry> {
  const visitedDirs = new Set<string>();
  const key = (ref: InodeRef): string => `${ref.block}:${ref.offset}`;
  // Depth-first, iterative: [directory inode ref, its path].
  const stack: Array<{ ref: InodeRef; path: string; depth: number }> = [{ ref: img.root, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { ref, path, depth } = stack.pop()!;
    let entries: SquashDirEntry[];
    try {
      const dir = img.readInode(ref);
      if (dir.kind !== 'dir') throw new FormatError(`inode ${key(ref)} of ${path || '/'} is not a directory`);
      entries = img.readDir(dir);
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      if (path === '') throw error;
      report(`${path}: ${error.message}`);
      continue;
    }
    const subdirs: typeof stack = [];
    for (const entry of entries) {
      if (entry.name === '' || entry.name === '.' || entry.name === '..' || entry.name.includes('/')) {
        report(`${path || '/'}: refused entry name ${JSON.stringify(entry.name)}`);
        continue;
      }
      const child = path ? `${path}/${entry.name}` : entry.name;
      const k = key(entry.ref);
      let inode: SquashInode;
      try {
        inode = img.readInode(entry.ref);
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        report(`${child}: ${error.message}`);
        continue;
      }
      if (inode.kind === 'dir') {
        if (visitedDirs.has(k) || k === key(img.root)) {
          report(`${child}: directory loop (inode ${k} already visited)`);
          continue;
        }
        if (depth + 1 > MAX_DEPTH) {
          report(`${child}: directories nested deeper than ${MAX_DEPTH}`);
          continue;
        }
        visitedDirs.add(k);
        subdirs.push({ ref: entry.ref, path: child, depth: depth + 1 });
      }
      yield { path: child, key: k, inode };
    }
    // Reverse so the first subdirectory is visited first.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
  }
}

/**
 * The tree walked once (its inodes and directories are read once; the files to reuse and the fragments' order are
 * known before the first file is extracted): every entry in walking order with each report where the walk made
 * it, and the error that ended the walk (an unreadable root), thrown by the extraction once it has reached it.
 */
export interface WalkedTree {
  items: Array<TreeEntry | { report: string }>;
  error?: { thrown: unknown };
}

export function walkOnce(img: SquashImage): WalkedTree {
  const items: WalkedTree['items'] = [];
  try {
    for (const entry of walkTree(img, (report) => items.push({ report }))) items.push(entry);
  } catch (thrown) {
    return { items, error: { thrown } };
  }
  return { items };
}

/** The regular files of the tree, each inode once (a second path to one is a hard link). */
export function regularFiles(tree: WalkedTree): Array<{ key: string; inode: Extract<SquashInode, { kind: 'file' }> }> {
  const seen = new Set<string>();
  const files: Array<{ key: string; inode: Extract<SquashInode, { kind: 'file' }> }> = [];
  for (const item of tree.items) {
    if (!('inode' in item) || item.inode.kind !== 'file' || seen.has(item.key)) continue;
    seen.add(item.key);
    files.push({ key: item.key, inode: item.inode });
  }
  return files;
}
