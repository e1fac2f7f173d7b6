// Cloud and service access tokens baked into any file of the image (tokens.ts lists the formats): whoever
// extracts the image holds the vendor's cloud account or API quota. Evidence is the token's first characters
// and the SHA-256 prefix, never the token. Severity high; CWE-798. One finding per file and token.
import { posix } from 'node:path';
import { sha256Hex } from '../hash.js';
import { secretDigest, weaknessFinding } from './finding.js';
import type { WeaknessContext, WeaknessRule } from './rule.js';
import { findTokens } from './tokens.js';
import { isExcludedText } from './excluded-paths.js';
import { ReadScratch } from '../file-read.js';
import type { EngineFinding, FileNode } from '../types.js';

const CHUNK = 1024 * 1024;
/**
 * Each chunk is searched as latin1 strings of this size: a string larger than V8's regular objects (128 KiB) goes
 * to the large-object space, which only a full collection frees, so 1 MiB strings of every file made the engine
 * thread's full collections; these die young and cost a scavenge nothing.
 */
const PIECE = 64 * 1024;
const OVERLAP = 512;
const MAX_FILE = 64 * 1024 * 1024;

/** The file's tokens, one finding each (its chunks read into `scratch` when the index does not keep the file). */
async function tokensIn(ctx: WeaknessContext, node: FileNode, scratch: ReadScratch): Promise<EngineFinding[]> {
  const findings: EngineFinding[] = [];
  for (let offset = 0; offset < node.size; offset += CHUNK) {
    const start = Math.max(0, offset - OVERLAP);
    // Each piece is searched with context on both sides (a token across the boundary, an AWS secret near its
    // id) and owns the matches that start inside it.
    const bytes = await ctx.index.readRange(node, start, offset + CHUNK + OVERLAP - start, scratch);
    for (let piece = offset; piece < Math.min(offset + CHUNK, node.size); piece += PIECE) {
      const from = Math.max(0, piece - OVERLAP);
      const text = bytes.toString('latin1', from - start, Math.min(bytes.length, piece + PIECE + OVERLAP - start));
      for (const match of findTokens(text, from)) {
        if (match.offset < piece || match.offset >= piece + PIECE) continue;
        const tokenId = sha256Hex(match.token).slice(0, 16);
        findings.push(weaknessFinding('embedded-token', {
          where: `${node.fsPath}|${match.kind.id}|${tokenId}`,
          cwe: 'CWE-798',
          severity: 'high',
          name: `${match.kind.label} in ${posix.basename(node.fsPath)}`,
          description: `${node.fsPath} contains a ${match.kind.label} (${match.token.slice(0, 8)}…). Anyone who extracts the firmware can use the account or service it grants.`,
          recommendedAction: 'Revoke the token now, remove it from the image, and have devices obtain per-device credentials at provisioning.',
          occurrences: [{ path: node.path, offset: match.offset, evidence: `${match.kind.label} ${match.token.slice(0, 8)}… (${secretDigest(match.token)})` }],
        }));
      }
    }
  }
  return findings;
}

export const embeddedTokenRule: WeaknessRule = {
  id: 'embedded-token',
  async run(ctx) {
    // Files that were unpacked report through their children (an archive holds the same bytes).
    const containers = new Set(ctx.index.nodes.map((n) => n.parent).filter((p): p is string => p !== undefined));
    const searched: FileNode[] = [];
    for (const node of ctx.index.files()) {
      if (node.size === 0 || containers.has(node.path) || isExcludedText(node.fsPath)) continue;
      if (node.size <= MAX_FILE) searched.push(node);
      else ctx.note({ path: node.path, kind: 'limit', message: `not searched for access tokens: larger than ${MAX_FILE} bytes` });
    }
    const scratch = new ReadScratch(); // the files are searched one at a time
    return ctx.perFile(searched, (node) => tokensIn(ctx, node, scratch));
  },
};
