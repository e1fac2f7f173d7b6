// Decoded once, not twice: a compression handler decodes a whole stream to find where it ends (chunk), then the
// same stream again to extract it. countKeeping keeps the blocks of the first decode (up to KEEP_MAX bytes a stream
// and KEEP_TOTAL bytes at once in this thread) for the chunk it returns, and the extraction writes them instead of
// decoding again (an OpenWrt kernel: 7.7 MB of LZMA, 0.2 s of CPU). Only for handlers whose extraction decodes the
// very same input as their probe: the same bytes come out, so the same file is written.
import type { ChunkContext, ChunkInfo } from '../handler.js';
import { countOnly } from './decode-stream.js';

const KEEP_MAX = 16 * 1024 * 1024;
const KEEP_TOTAL = 64 * 1024 * 1024;

interface Kept {
  parts: Buffer[];
  bytes: number;
  /** Handed over to an extraction, or never counted: no longer part of keptBytes. */
  done: boolean;
}

const keptFor = new WeakMap<ChunkInfo, Kept>();
let keptBytes = 0;
/** Gives back the bytes of a chunk that is never extracted (e.g. past the depth limit) once it is collected. */
const release = new FinalizationRegistry<Kept>((kept) => {
  if (!kept.done) keptBytes -= kept.bytes;
});

/** Passes the blocks on, keeping them in `kept.parts` while they fit; drops them (`over`) once they do not. */
async function* keeping<R>(blocks: AsyncGenerator<Buffer, R>, kept: { parts: Buffer[]; size: number; over: boolean }): AsyncGenerator<Buffer, R> {
  try {
    for (;;) {
      const next = await blocks.next();
      if (next.done) return next.value;
      if (!kept.over) {
        kept.size += next.value.length;
        if (kept.size > KEEP_MAX || keptBytes + kept.size > KEEP_TOTAL) {
          kept.over = true;
          kept.parts = [];
        } else kept.parts.push(next.value);
      }
      yield next.value;
    }
  } finally {
    await blocks.return(undefined as R);
  }
}

/**
 * countOnly (decode-stream.ts) that also keeps the decoded blocks; `attach` them to the chunk the handler returns.
 * Null and errors exactly as countOnly.
 */
export async function countKeeping<R>(
  codec: string,
  blocks: AsyncGenerator<Buffer, R>,
  ctx?: ChunkContext,
): Promise<{ result: R; size: number; attach(info: ChunkInfo): void } | null> {
  const kept = { parts: [] as Buffer[], size: 0, over: false };
  const counted = await countOnly(codec, keeping(blocks, kept), ctx);
  if (!counted) return null;
  return {
    ...counted,
    attach(info) {
      if (kept.over || kept.size !== counted.size) return;
      const entry: Kept = { parts: kept.parts, bytes: kept.size, done: false };
      keptFor.set(info, entry);
      keptBytes += entry.bytes;
      release.register(info, entry);
    },
  };
}

/** The blocks kept for this chunk, handed over once; undefined when there are none (decode it again). */
export function takeKept(info: ChunkInfo): AsyncIterable<Buffer> | undefined {
  const entry = keptFor.get(info);
  if (!entry || entry.done) return undefined;
  entry.done = true;
  keptBytes -= entry.bytes;
  keptFor.delete(info);
  // The registry holds the entry until the chunk is collected: it must not hold the blocks once they are written.
  const parts = entry.parts;
  entry.parts = [];
  return (async function* () {
    yield* parts;
  })();
}
