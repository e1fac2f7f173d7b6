// ext3/ext4 journal (jbd2) replay, read-only: an image taken from a device that was not cleanly unmounted holds
// committed transactions whose blocks never reached their home location. Replaying them as an overlay (block
// number → journal copy) makes the extracted tree what the kernel would mount. Written from Linux
// include/linux/jbd2.h and fs/jbd2/recovery.c (scan, revoke and replay passes).
import { FormatError } from '../../../format-error.js';
import type { BlockSource, Runs } from './inode.js';

const JBD2_MAGIC = 0xc03b3998;
const BLOCK = { DESCRIPTOR: 1, COMMIT: 2, SUPERBLOCK_V1: 3, SUPERBLOCK_V2: 4, REVOKE: 5 } as const;
const INCOMPAT = { REVOKE: 0x1, BIT64: 0x2, CSUM_V2: 0x8, CSUM_V3: 0x10 } as const;
const TAG = { ESCAPE: 0x1, SAME_UUID: 0x2, LAST: 0x8 } as const;

export interface JournalCopy {
  /** Physical block (in the filesystem) holding the journal's copy. */
  physical: number;
  /** The copy had its first 4 bytes replaced because they looked like the journal magic. */
  escaped: boolean;
}

export interface ReplayResult {
  overlay: Map<number, JournalCopy>;
  transactions: number;
}

/** Maps journal-relative block numbers to filesystem blocks through the journal inode's runs. */
function mapper(runs: Runs): (n: number) => number {
  return (n: number) => {
    for (const r of runs) if (n >= r.logical && n < r.logical + r.length && !r.zero) return r.physical + (n - r.logical);
    throw new FormatError(`journal block ${n} is not mapped`);
  };
}

/**
 * Scans the journal from its recorded start and returns the blocks committed transactions carry, newest copy
 * per block, minus revoked ones. A clean journal (start 0) replays nothing.
 */
export async function replayJournal(runs: Runs, readBlock: BlockSource, blockSize: number): Promise<ReplayResult> {
  const toFs = mapper(runs);
  const sbRaw = await readBlock(toFs(0));
  if (sbRaw.readUInt32BE(0) !== JBD2_MAGIC) throw new FormatError('journal superblock has no jbd2 magic');
  const sbType = sbRaw.readUInt32BE(4);
  if (sbType !== BLOCK.SUPERBLOCK_V1 && sbType !== BLOCK.SUPERBLOCK_V2) throw new FormatError(`journal superblock has type ${sbType}`);
  if (sbRaw.readUInt32BE(12) !== blockSize) throw new FormatError('journal block size differs from the filesystem');
  const maxLen = sbRaw.readUInt32BE(16);
  const first = sbRaw.readUInt32BE(20);
  let sequence = sbRaw.readUInt32BE(24);
  const start = sbRaw.readUInt32BE(28);
  const incompat = sbType === BLOCK.SUPERBLOCK_V2 ? sbRaw.readUInt32BE(40) : 0;
  const empty = { overlay: new Map<number, JournalCopy>(), transactions: 0 };
  if (start === 0) return empty;
  if (first === 0 || first >= maxLen || start < first || start >= maxLen) throw new FormatError('journal superblock has an invalid log range');

  const is64 = (incompat & INCOMPAT.BIT64) !== 0;
  const csum3 = (incompat & INCOMPAT.CSUM_V3) !== 0;
  const csum2 = (incompat & INCOMPAT.CSUM_V2) !== 0;
  const tagBytes = csum3 ? 16 : 12 + (csum2 ? 2 : 0) - (is64 ? 0 : 4);
  const tailBytes = csum2 || csum3 ? 4 : 0;
  const wrap = (n: number) => (n >= maxLen ? first + (n - maxLen) : n);

  // One transaction's copies are kept apart until its commit block is seen: an uncommitted tail is ignored.
  const committed: Array<{ sequence: number; copies: Array<{ target: number } & JournalCopy> }> = [];
  const revoked = new Map<number, number>();
  let pending: Array<{ target: number } & JournalCopy> = [];
  let pendingRevokes: number[] = [];
  let pos = start;
  for (let steps = 0; steps < maxLen; steps++) {
    const raw = await readBlock(toFs(pos));
    if (raw.readUInt32BE(0) !== JBD2_MAGIC || raw.readUInt32BE(8) !== sequence) break;
    const type = raw.readUInt32BE(4);
    pos = wrap(pos + 1);
    if (type === BLOCK.DESCRIPTOR) {
      let at = 12;
      while (at + tagBytes <= blockSize - tailBytes) {
        const low = raw.readUInt32BE(at);
        const flags = csum3 ? raw.readUInt32BE(at + 4) : raw.readUInt16BE(at + 6);
        const high = is64 ? raw.readUInt32BE(at + 8) : 0;
        pending.push({ target: high * 2 ** 32 + low, physical: toFs(pos), escaped: (flags & TAG.ESCAPE) !== 0 });
        pos = wrap(pos + 1);
        at += tagBytes + (flags & TAG.SAME_UUID ? 0 : 16);
        if (flags & TAG.LAST) break;
      }
    } else if (type === BLOCK.COMMIT) {
      committed.push({ sequence, copies: pending });
      for (const block of pendingRevokes) revoked.set(block, Math.max(revoked.get(block) ?? 0, sequence));
      pending = [];
      pendingRevokes = [];
      sequence = (sequence + 1) >>> 0;
    } else if (type === BLOCK.REVOKE) {
      const used = Math.min(raw.readUInt32BE(12), blockSize);
      const width = is64 ? 8 : 4;
      for (let at = 16; at + width <= used; at += width) {
        pendingRevokes.push(is64 ? Number(raw.readBigUInt64BE(at)) : raw.readUInt32BE(at));
      }
    } else break;
  }
  const overlay = new Map<number, JournalCopy>();
  for (const t of committed) {
    for (const c of t.copies) {
      // A revoke in this or a later transaction cancels the copy.
      if ((revoked.get(c.target) ?? -1) >= t.sequence) continue;
      overlay.set(c.target, { physical: c.physical, escaped: c.escaped });
    }
  }
  return { overlay, transactions: committed.length };
}

/** Restores the journal magic a copy had escaped. */
export function unescape(block: Buffer, copy: JournalCopy): Buffer {
  if (!copy.escaped) return block;
  const out = Buffer.from(block);
  out.writeUInt32BE(JBD2_MAGIC, 0);
  return out;
}
