// The crypto stage's files whose facts the cache does not have are shared between the engine's thread and the
// crypto facts thread (crypto-facts-thread.ts): the thread takes them from the last one back, the engine's thread
// from the first one on, each claiming a file in a shared array before computing it, so that the two finish about
// when they meet, and the stage still adds every file's facts in its own order. The thread is started when the
// analysis starts (the stage's Analyzer.start), so that it works while inventory and vulnerability matching hold the
// engine's thread, and ended after the stage's turn, so that its memory is given back before the scan's end (where
// the scan's peak is: the result and the cache's rows); a cold scan of the bench image otherwise left the second
// core idle for most of the stage's 1.8 s, and then for half of inventory's 1.3 s.
import type { FileIndex } from '../file-index.js';
import { TaskThread } from '../task-thread.js';
import type { FileNode } from '../types.js';
import { CLAIMED_BY_ENGINE, type CryptoFactsMessage, type CryptoFileFacts } from './file-facts.js';

const thread = new TaskThread<CryptoFactsMessage>(import.meta.url, 'crypto-facts-thread');

/**
 * Fewer bytes to scan than this are all scanned on the engine's thread: the thread's start (about 0.1 s) and its
 * messages cost more than it gives (the OpenWrt image's 25 MB took 0.20-0.24 s shared against 0.14-0.17 s not).
 */
export const SHARE_FROM_BYTES = 64 * 1024 * 1024;

export interface SharedFacts {
  /** The thread's facts of a file it took (null if it failed), or undefined: the engine's thread has it now. */
  take(node: FileNode): Promise<CryptoFileFacts | null> | undefined;
  /** Ends the thread; what it still held is dropped. */
  end(): void;
  /** Settles once the thread has answered for every file (each taken or skipped). */
  answered: Promise<void>;
}

/** Starts the thread on `files` (in the stage's order; it works from the last one back). */
export function shareFacts(index: FileIndex, files: readonly FileNode[], now: Date): SharedFacts {
  const claims = new Int32Array(new SharedArrayBuffer(4 * files.length));
  const slots = new Map<FileNode, number>();
  const replies = new Map<FileNode, Promise<CryptoFileFacts | null>>();
  for (let slot = files.length - 1; slot >= 0; slot--) {
    const node = files[slot]!;
    slots.set(node, slot);
    const message: CryptoFactsMessage = { file: index.absolutePath(node), path: node.path, size: node.size, encoded: index.encodedRanges(node), now: now.getTime(), claims, slot };
    // a thread that fails a file (or dies) leaves it to the engine's thread, which reports its own error if it has one
    replies.set(node, thread.call<CryptoFileFacts | null>(message).catch(() => null));
  }
  return {
    take(node) {
      const slot = slots.get(node);
      if (slot === undefined || Atomics.compareExchange(claims, slot, 0, CLAIMED_BY_ENGINE) === 0) return undefined;
      return replies.get(node);
    },
    end: () => thread.stop(),
    answered: Promise.all(replies.values()).then(() => undefined),
  };
}
