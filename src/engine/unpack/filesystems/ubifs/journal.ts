// The UBIFS journal: what was written after the last commit and is not in the index yet. The log (LEBs 3 ..
// 3 + log_lebs, circular) starts at the master node's log LEB with a commit-start node; the reference nodes
// after it name the "buds", the LEBs (and offsets in them) where journal heads wrote new nodes. Replaying
// means reading every bud node newer than the commit start, in sequence order. Written from Linux
// fs/ubifs/replay.c, log.c and scan.c.
import { FormatError } from '../../../format-error.js';
import type { Sink } from '../../handler.js';
import { CommonHeader, NODE, UBIFS_MAGIC, UbifsVolume, type Header } from './nodes.js';

export const LOG_LNUM = 3;
const PADDING_BYTE = 0xce;

export interface ScannedNode {
  header: Header;
  node: Buffer;
  lnum: number;
  offs: number;
}

/**
 * Reads the nodes of one LEB from `offs` until free space (0xFF). Padding nodes and padding bytes are skipped.
 * Anything else that is not a valid node ends the scan (a write cut short by power loss looks like this).
 */
async function scanLeb(vol: UbifsVolume, lnum: number, offs: number, sink: Sink, resync = false): Promise<ScannedNode[]> {
  const out: ScannedNode[] = [];
  while (offs + CommonHeader.size <= vol.lebSize) {
    if (sink.signal.aborted) throw sink.signal.reason;
    const head = await vol.reader.read(vol.base + lnum * vol.lebSize + offs, CommonHeader.size);
    if (head.length < CommonHeader.size || head.every((b) => b === 0xff)) break;
    if (head[0] === PADDING_BYTE) {
      offs = (offs + 8) & ~7;
      continue;
    }
    let found: { header: Header; node: Buffer } | undefined;
    try {
      if (head.readUInt32LE(0) === UBIFS_MAGIC) found = await vol.node(lnum, offs);
    } catch (error) {
      if (!(error instanceof FormatError) || !resync) throw error;
    }
    if (!found) {
      if (!resync) break;
      offs += 8; // recovery: look for the next node on the 8-byte grid nodes are laid on
      continue;
    }
    const { header, node } = found;
    if (header.nodeType === NODE.PAD) {
      if (node.length < 28) break;
      offs += header.len + node.readUInt32LE(24);
      continue;
    }
    out.push({ header, node, lnum, offs });
    offs += (header.len + 7) & ~7;
  }
  return out;
}

/** The journal's leaf nodes newer than the last commit, in the order they must be applied. */
export async function journalNodes(vol: UbifsVolume, logLnum: number, logLebs: number, sink: Sink): Promise<ScannedNode[]> {
  if (logLebs === 0 || logLnum < LOG_LNUM || logLnum >= LOG_LNUM + logLebs) {
    sink.problem('error', `UBIFS: master node names log LEB ${logLnum}, outside the log; journal not replayed`);
    return [];
  }
  let csSqnum: number | undefined;
  const buds: Array<{ lnum: number; offs: number }> = [];
  try {
    scan: for (let i = 0; i < logLebs; i++) {
      const lnum = LOG_LNUM + ((logLnum - LOG_LNUM + i) % logLebs);
      const nodes = await scanLeb(vol, lnum, 0, sink);
      if (nodes.length === 0) break;
      for (const { header, node } of nodes) {
        if (csSqnum === undefined) {
          if (header.nodeType !== NODE.CS) throw new FormatError(`log LEB ${lnum} does not start with a commit-start node`);
          csSqnum = header.sqnum;
          continue;
        }
        // Older nodes are left from before the commit; a second commit start cannot follow a completed one.
        if (header.sqnum <= csSqnum || header.nodeType === NODE.CS) break scan;
        if (header.nodeType === NODE.REF && node.length >= 36) buds.push({ lnum: node.readUInt32LE(24), offs: node.readUInt32LE(28) });
      }
    }
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    sink.problem('error', `UBIFS: log: ${error.message}; journal not replayed`);
    return [];
  }
  const nodes: ScannedNode[] = [];
  for (const bud of buds) {
    try {
      if (bud.lnum >= vol.lebCount || bud.offs >= vol.lebSize) throw new FormatError(`bud ${bud.lnum}:${bud.offs} is outside the volume`);
      for (const n of await scanLeb(vol, bud.lnum, bud.offs, sink)) if (n.header.sqnum > csSqnum!) nodes.push(n);
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      sink.problem('error', `UBIFS: journal bud ${bud.lnum}:${bud.offs}: ${error.message}`);
    }
  }
  return nodes.sort((a, b) => a.header.sqnum - b.header.sqnum);
}

/** Recovery: every valid leaf node in the main area (LEBs from `firstMain`), newest last. */
export async function allNodes(vol: UbifsVolume, firstMain: number, sink: Sink): Promise<ScannedNode[]> {
  const nodes: ScannedNode[] = [];
  for (let lnum = firstMain; lnum < vol.lebCount; lnum++) {
    for (const n of await scanLeb(vol, lnum, 0, sink, true)) {
      if (n.header.nodeType <= NODE.TRUN) nodes.push(n);
    }
  }
  return nodes.sort((a, b) => a.header.sqnum - b.header.sqnum);
}
