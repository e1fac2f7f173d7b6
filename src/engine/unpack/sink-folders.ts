// The folders a sink makes under its root: each asked for once, synchronously (one or two system calls, as the
// sink's small files are written), or in the background on libuv's pool for a whole tree at once (Sink.dirs).
import { mkdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

export class Folders {
  private readonly made = new Set<string>();
  /** Folders being made in the background: a file written into one waits for it. */
  private readonly making = new Map<string, Promise<void>>();

  constructor(private readonly root: string) {}

  /**
   * Makes a folder and its parents now, unless made already; a folder being made in the background is waited for
   * (the promise). Throws the filesystem's error.
   */
  ensure(path: string): Promise<void> | undefined {
    if (this.made.has(path)) return undefined;
    const making = this.making.get(path);
    if (making) return making;
    mkdirSync(join(this.root, path), { recursive: true });
    this.remember(path);
    return undefined;
  }

  /** Makes one folder with an asynchronous mkdir once its parent is there; a failure is not remembered. */
  makeInBackground(path: string): Promise<void> {
    if (this.made.has(path)) return Promise.resolve();
    let making = this.making.get(path);
    if (making) return making;
    const slash = path.lastIndexOf('/');
    const parent = path === '' ? Promise.resolve() : this.makeInBackground(slash > 0 ? path.slice(0, slash) : '');
    making = parent
      .then(() => mkdir(join(this.root, path), { recursive: true }))
      .then(
        () => {
          this.making.delete(path);
          this.remember(path);
        },
        (error: unknown) => {
          this.making.delete(path);
          throw error;
        },
      );
    this.making.set(path, making);
    return making;
  }

  /** Remembers a folder as made, with its parents. */
  private remember(path: string): void {
    for (let dir = path; !this.made.has(dir); dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/')))) {
      this.made.add(dir);
      if (dir === '') break;
    }
  }
}
