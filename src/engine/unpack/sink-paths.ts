// Where a sink's entries go: paths from archives and filesystems confined to the sink's folder (confinePath), and
// the names a sink has used, so that every entry keeps a unique path and nothing written is overwritten (PathTable).

/** What holds a path of the sink's tree (sink.ts's entries' kinds). */
export type EntryKind = 'file' | 'directory' | 'symlink' | 'hardlink' | 'device' | 'fifo' | 'socket';

/**
 * Normalises a path from an archive or filesystem to a safe relative path, or returns an error message.
 * Absolute paths are made relative (as tar and unsquashfs do) and flagged, so the sink can report them;
 * '..' segments and NUL bytes are refused.
 */
export function confinePath(raw: string): { path: string; absolute?: true } | { error: string } {
  if (raw.includes('\0')) return { error: `path contains a NUL byte: ${JSON.stringify(raw)}` };
  const parts: string[] = [];
  for (const part of raw.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') return { error: `path escapes the output folder: ${JSON.stringify(raw)}` };
    parts.push(part);
  }
  if (parts.length === 0) return { error: `empty path: ${JSON.stringify(raw)}` };
  return raw.startsWith('/') ? { path: parts.join('/'), absolute: true } : { path: parts.join('/') };
}

/** What holds a path of the sink's tree: an entry of that kind, or 'parent', a directory made for entries below it. */
type Slot = EntryKind | 'parent';

/**
 * The names a sink has used, so that every entry keeps a unique path and nothing already written is overwritten.
 * The rule: the first entry keeps its name. A later entry whose name is taken is kept as `name~N` (the first free
 * N), and so is a directory that must go where a non-directory is; the entries below such a directory follow it
 * there. Each rename is reported as a warning naming both paths. A directory entry repeated is the same directory.
 */
export class PathTable {
  private readonly slots = new Map<string, Slot>();
  /** Directories kept under another name: the path asked for (under its placed parent) → the path used. */
  private readonly moved = new Map<string, string>();

  constructor(private readonly warn: (message: string) => void) {}

  /** The path the entry goes to; undefined for a directory that already has its entry. */
  place(path: string, kind: EntryKind): string | undefined {
    const parts = path.split('/');
    const name = parts.pop()!;
    let parent = '';
    for (const part of parts) parent = this.placeDir(joinPath(parent, part), path);
    const wanted = joinPath(parent, name);
    if (kind === 'directory') {
      const placed = this.placeDir(wanted, path);
      if (this.slots.get(placed) === 'directory') return undefined;
      this.slots.set(placed, 'directory');
      return placed;
    }
    const existing = this.slots.get(wanted);
    if (existing === undefined) {
      this.slots.set(wanted, kind);
      return wanted;
    }
    const free = this.free(wanted);
    this.slots.set(free, kind);
    this.warn(`name clash: ${kind} ${JSON.stringify(path)} kept as ${JSON.stringify(free)}, as ${JSON.stringify(wanted)} is already a ${describe(existing)}`);
    return free;
  }

  /** Frees the name of an entry that was not kept, so a later entry can take it. */
  release(path: string): void {
    const slot = this.slots.get(path);
    if (slot !== undefined && slot !== 'parent' && slot !== 'directory') this.slots.delete(path);
  }

  /** Where a directory asked for as `wanted` is (or will be) made; reserves it as a parent when new. */
  private placeDir(wanted: string, path: string): string {
    const placed = this.moved.get(wanted) ?? wanted;
    const existing = this.slots.get(placed);
    if (existing === undefined) this.slots.set(placed, 'parent');
    if (existing === undefined || existing === 'parent' || existing === 'directory') return placed;
    const free = this.free(placed);
    this.slots.set(free, 'parent');
    this.moved.set(wanted, free);
    this.warn(
      `name clash: directory ${JSON.stringify(placed)} (for ${JSON.stringify(path)}) made as ${JSON.stringify(free)}, as ${JSON.stringify(placed)} is already a ${describe(existing)}`,
    );
    return free;
  }

  private free(path: string): string {
    for (let n = 1; ; n++) if (!this.slots.has(`${path}~${n}`)) return `${path}~${n}`;
  }
}

function joinPath(parent: string, name: string): string {
  return parent ? `${parent}/${name}` : name;
}

function describe(slot: Slot): string {
  return slot === 'parent' ? 'directory' : slot;
}

