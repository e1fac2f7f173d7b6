// How analyzers (identifiers, crypto detectors, rules) see the extracted tree: select by glob or predicate,
// look up by path, read contents. The same interface serves a scan's extraction folder and a test fixture
// folder, so analyzers run identically on both.
import { createReadStream } from 'node:fs';
import { lstat, open, readFile, readdir, readlink } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import picomatch from 'picomatch';
import type { FileNode } from './types.js';

export class FileIndex {
  private readonly byPath = new Map<string, FileNode>();
  private readonly byFsPath = new Map<string, FileNode[]>();

  constructor(
    /** Absolute folder that FileNode.path values are relative to. */
    readonly root: string,
    readonly nodes: FileNode[],
  ) {
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
    return this.nodes.filter((n) => n.kind === 'file');
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
    const match = picomatch(patterns, { dot: true });
    return this.files().filter((n) => match(n.fsPath) || match(n.path));
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

  absolutePath(node: FileNode): string {
    return join(this.root, node.path);
  }

  async read(node: FileNode): Promise<Buffer> {
    return readFile(this.absolutePath(node));
  }

  /** Reads at most `length` bytes from `offset`. */
  async readRange(node: FileNode, offset: number, length: number): Promise<Buffer> {
    const handle = await open(this.absolutePath(node), 'r');
    try {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, offset);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  stream(node: FileNode): Readable {
    return createReadStream(this.absolutePath(node), { highWaterMark: 1024 * 1024 });
  }
}
