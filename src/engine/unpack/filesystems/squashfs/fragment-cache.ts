// Decoded fragment blocks of a SquashFS extraction, shared by the small files packed in each. A fragment used to be
// decoded when its first file asked for it, and the walk waited for each decode in turn. With the order in which
// the walk will first want each fragment, the next few are decoded ahead, on the codec thread pool, while the
// files of the current one are written.

/**
 * Bytes of decoded fragments kept. The walk does not reach fragments in their order (mksquashfs packs files in its
 * own order), so a fragment is often wanted again long after its first use; on the 64 MB bench image (128 KiB
 * blocks) 32 fragments decoded 1,263 times for 1,115, 128 decoded 1,142 times, 256 each once.
 */
const CAPACITY_BYTES = 16 * 1024 * 1024;
/** Fragments kept at least: those of the files in flight and the batches of stored-forms.ts decoded ahead (3 × 8). */
const MIN_CAPACITY = 40;

/** Fragments decoded ahead of the one asked for. */
const AHEAD = 3;

/** How many decoded fragments of this block size to keep. */
export function fragmentCapacity(blockSize: number): number {
  return Math.max(MIN_CAPACITY, Math.floor(CAPACITY_BYTES / Math.max(1, blockSize)));
}

export class FragmentCache {
  private readonly cache = new Map<number, Promise<Buffer>>();
  /** Where each fragment comes in `order`. */
  private readonly position = new Map<number, number>();
  /** The furthest position in `order` asked for, and the furthest decoded ahead. */
  private furthest = -1;
  private readTo = -1;

  constructor(
    /** Decodes one fragment block (a bad index or block rejects). */
    private readonly decode: (index: number) => Promise<Buffer>,
    /** Fragment indices in the order of their first use, each once (empty: nothing is decoded ahead). */
    private readonly order: readonly number[] = [],
    private readonly capacity = MIN_CAPACITY,
  ) {
    order.forEach((index, at) => this.position.set(index, at));
  }

  get(index: number): Promise<Buffer> {
    let p = this.cache.get(index);
    if (p) {
      this.cache.delete(index);
      this.cache.set(index, p);
    } else {
      p = this.add(index);
    }
    this.readAhead(index);
    return p;
  }

  /**
   * Starts decoding the fragments that follow the furthest one asked for in the walk's order, each at most once: a
   * late ask for an earlier fragment (the tail of a large file comes after its blocks) must not decode again the
   * ones after it, which were used and dropped.
   */
  private readAhead(index: number): void {
    const at = this.position.get(index);
    if (at === undefined) return;
    this.furthest = Math.max(this.furthest, at);
    for (let i = Math.max(this.readTo, this.furthest) + 1; i <= this.furthest + AHEAD && i < this.order.length; i++) {
      const next = this.order[i]!;
      if (!this.cache.has(next)) this.add(next).catch(() => undefined); // a fault is reported to the file that asks
      this.readTo = i;
    }
  }

  private add(index: number): Promise<Buffer> {
    const p = this.decode(index);
    this.cache.set(index, p);
    if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value as number);
    return p;
  }
}

/** The fragments of `files` in the order of their first use (the files in walking order). */
export function fragmentOrder(files: ReadonlyArray<{ inode: { fragment: number } }>): number[] {
  const seen = new Set<number>();
  const order: number[] = [];
  for (const { inode } of files) {
    if (inode.fragment === -1 || seen.has(inode.fragment)) continue;
    seen.add(inode.fragment);
    order.push(inode.fragment);
  }
  return order;
}
