// The 'crypto' analysis stage: every extracted file is scanned once for algorithm constants, library and
// protocol strings, keys and certificates; configuration files are parsed; the results become the scan's
// crypto assets and the knownVulnerability findings among them. A file that was also unpacked (a firmware
// volume and the modules inside it) reports only what its extracted children do not, so evidence points at
// the innermost file.
import { basename } from 'node:path';
import type { AnalysisContext, Analyzer } from '../analyzer.js';
import type { FileNode } from '../types.js';
import { AssetBuilder } from './assets.js';
import { CONFIG_GLOBS, parseConfig } from './config-files.js';
import type { FileDetections } from './detections.js';
import { validityFacts } from './certificates.js';
import { facetLookup, type FacetLookup } from '../analysis-cache.js';
import { ReadScratch } from '../file-read.js';
import { restoreOutput } from '../image-cache.js';
import { cryptoFindings } from './findings.js';
import { cryptoFileFacts, type CryptoFileFacts } from './file-facts.js';
import { SHARE_FROM_BYTES, shareFacts, type SharedFacts } from './facts-sharing.js';

export interface CryptoAnalyzerOptions {
  /** Clock for expiry checks (tests pin it). */
  now?: () => Date;
  /** Files larger than this are not scanned (bytes). */
  maxFileSize?: number;
  /** From this many bytes to scan on, the crypto facts thread takes part (facts-sharing.ts; tests set 0 or Infinity). */
  shareFromBytes?: number;
}

const MAX_CONFIG = 1024 * 1024;
/** Identity of a detection for the parent/child de-duplication. */
function keysOf(d: FileDetections): string[] {
  return [
    ...d.algorithms.map((a) => `a|${a.algorithm}|${a.what}`),
    ...d.libraries.map((l) => `l|${l.id}`),
    ...d.protocols.map((p) => `p|${p.protocol}`),
    ...d.materials.map((m) => `m|${m.certificate?.sha256 ?? m.keyId ?? `${m.kind}|${m.format}|${m.length}`}`),
  ];
}

function withoutSeen(d: FileDetections, seen: Set<string> | undefined): FileDetections {
  if (!seen?.size) return d;
  return {
    path: d.path,
    algorithms: d.algorithms.filter((a) => !seen.has(`a|${a.algorithm}|${a.what}`)),
    libraries: d.libraries.filter((l) => !seen.has(`l|${l.id}`)),
    protocols: d.protocols.filter((p) => !seen.has(`p|${p.protocol}`)),
    materials: d.materials.filter((m) => !seen.has(`m|${m.certificate?.sha256 ?? m.keyId ?? `${m.kind}|${m.format}|${m.length}`}`)),
  };
}

/** Certificates the UEFI handlers extracted from EFI signature lists keep their variable (PK, KEK, db, dbx). */
function applyNodeContext(node: FileNode, detections: FileDetections): void {
  if (node.format !== 'efi-signature-list' || !node.parent) return;
  const owner = typeof node.meta?.owner === 'string' ? node.meta.owner.toLowerCase() : undefined;
  const context = { container: 'EFI signature list', efiVariable: basename(node.parent), ...(owner ? { signatureOwner: owner } : {}) };
  for (const material of detections.materials) if (material.kind === 'certificate' && !material.context) material.context = context;
}

/** The bytes of a file the single pass scans: all but the ranges its extracted chunks occupy (scanned decoded). */
function scannedBytes(node: FileNode, encoded: ReadonlyArray<readonly [number, number]>): number {
  return encoded.reduce((left, [start, end]) => left - Math.max(0, Math.min(end, node.size) - Math.min(start, node.size)), node.size);
}

/**
 * A file's facts on the engine's thread, read through the FileIndex (its kept contents or one descriptor); the
 * pieces of its single pass, which nothing keeps, into `scratch` (as the facts thread reads them into one buffer).
 */
async function factsHere(ctx: AnalysisContext, node: FileNode, now: Date, scratch: ReadScratch): Promise<CryptoFileFacts> {
  const reader = await ctx.index.reader(node, scratch);
  try {
    return await cryptoFileFacts({ path: node.path, size: node.size, encoded: ctx.index.encodedRanges(node) }, reader.read, now, ctx.signal, reader.readInto);
  } finally {
    await reader.close();
  }
}

/** A file's facts: the crypto facts thread's when it took the file (and did not fail), the engine thread's otherwise. */
async function factsOf(ctx: AnalysisContext, node: FileNode, now: Date, shared: SharedFacts | undefined, scratch: ReadScratch): Promise<CryptoFileFacts> {
  const taken = shared?.take(node);
  return (taken && (await taken)) || factsHere(ctx, node, now, scratch);
}

/** A cached file's results get its path in this tree, and its certificates are checked against today's date again. */
function restamp(facts: CryptoFileFacts, node: FileNode, now: Date): CryptoFileFacts {
  facts.detections.path = node.path;
  for (const { certificate } of facts.detections.materials) {
    if (certificate) Object.assign(certificate, validityFacts(new Date(certificate.notBefore), new Date(certificate.notAfter), now));
  }
  return facts;
}

/** What the stage sets up before its loop: the files in its order, their cached facts, and the thread's share. */
interface Prepared {
  ordered: FileNode[];
  configs: Set<string>;
  cache: FacetLookup<CryptoFileFacts>;
  shared?: SharedFacts;
}

/** What `start` began for the stage's turn (ctx.begun): its clock and its setup, the thread already at work. */
interface Begun {
  now: Date;
  prepared: Promise<Prepared>;
  /** Ends the thread if the scan is cancelled before the stage's turn has ended it. */
  stop: () => void;
}

export function createCryptoAnalyzer(options: CryptoAnalyzerOptions = {}): Analyzer {
  const maxFileSize = options.maxFileSize ?? 1024 * 1024 * 1024;
  const shareFromBytes = options.shareFromBytes ?? SHARE_FROM_BYTES;

  async function prepare(ctx: AnalysisContext, now: Date): Promise<Prepared> {
    const files = ctx.index.files().filter((n) => n.size > 0 && n.size <= maxFileSize);
    const configs = new Set(ctx.index.glob(...CONFIG_GLOBS).map((n) => n.path));
    // Deepest first, so a parent knows what its children already reported.
    const ordered = [...files].sort((a, b) => b.depth - a.depth);
    const cache = await facetLookup<CryptoFileFacts>(ctx.fileCache, 'crypto', `max-size ${maxFileSize}`, ordered);
    const uncached = ordered.filter((node) => !cache.has(node));
    const toScan = uncached.reduce((sum, node) => sum + scannedBytes(node, ctx.index.encodedRanges(node)), 0);
    const shared = toScan >= shareFromBytes ? shareFacts(ctx.index, uncached, now) : undefined;
    return { ordered, configs, cache, shared };
  }

  return {
    id: 'crypto',
    phase: 'cryptographic material',
    // The facts thread starts once the files are unpacked, from the last file back, while inventory and
    // vulnerability matching (which crypto's assets need, not its facts) hold the engine's thread.
    start(ctx: AnalysisContext): void {
      const now = options.now?.() ?? new Date();
      const prepared = prepare(ctx, now);
      const stop = () => void prepared.then((p) => p.shared?.end(), () => undefined);
      ctx.signal.addEventListener('abort', stop, { once: true });
      ctx.begun?.set('crypto', { now, prepared, stop } satisfies Begun);
    },
    async run(ctx: AnalysisContext): Promise<void> {
      const begun = ctx.begun?.get('crypto') as Begun | undefined;
      ctx.begun?.delete('crypto');
      if (begun) ctx.signal.removeEventListener('abort', begun.stop);
      const now = begun?.now ?? options.now?.() ?? new Date();
      // a setup that failed at the start is made again here, and fails here if it must
      const { ordered, configs, cache, shared } = await (begun?.prepared.catch(() => prepare(ctx, now)) ?? prepare(ctx, now));
      const seenBelow = new Map<string, Set<string>>();
      const builder = new AssetBuilder(ctx.components);
      const scratch = new ReadScratch(); // one file's facts at a time
      let done = 0;
      try {
        for (const node of ordered) {
          ctx.signal.throwIfAborted();
          try {
            const cached = cache.get(node);
            const facts = cached ? restamp(cached, node, now) : await factsOf(ctx, node, now, shared, scratch);
            if (!cached) cache.put(node, facts);
            let detections = facts.detections;
            if (configs.has(node.path) && node.size <= MAX_CONFIG) {
              const parsed = parseConfig(node.fsPath, (await ctx.index.read(node)).toString('utf8'));
              detections.protocols.push(...parsed.protocols);
              detections.materials.push(...parsed.materials);
            }
            detections.algorithms.push(...facts.imports);
            if (facts.executable && detections.materials.length) {
              for (const material of detections.materials) material.context = { ...material.context, embeddedIn: `${facts.executable} executable` };
            }
            applyNodeContext(node, detections);
            const keys = keysOf(detections);
            detections = withoutSeen(detections, seenBelow.get(node.path));
            for (let parent = node.parent; parent; parent = ctx.index.get(parent)?.parent) {
              const set = seenBelow.get(parent) ?? new Set<string>();
              keys.forEach((k) => set.add(k));
              seenBelow.set(parent, set);
            }
            builder.addFile(detections);
          } catch (error) {
            if (ctx.signal.aborted) throw error;
            ctx.problems.push({ path: node.path, source: 'crypto', kind: 'error', message: `crypto detection failed: ${(error as Error).message}` });
          }
          ctx.progress(Math.floor((++done * 100) / Math.max(1, ordered.length)));
        }
      } finally {
        shared?.end();
      }
      const assets = builder.build();
      ctx.cryptoAssets.push(...assets);
      ctx.findings.push(...cryptoFindings(assets, now));
    },
    replay: {
      // from the image-level cache: the certificates are checked against today's date again, and so are their findings
      async run(ctx, added) {
        const now = options.now?.() ?? new Date();
        for (const asset of added.cryptoAssets) {
          const d = asset.details as { notBefore?: string; notAfter?: string } | undefined;
          if (asset.assetType === 'certificate' && d?.notBefore && d.notAfter) Object.assign(d, validityFacts(new Date(d.notBefore), new Date(d.notAfter), now));
        }
        restoreOutput(ctx, { ...added, findings: cryptoFindings(added.cryptoAssets, now) });
      },
    },
  };
}

export const cryptoAnalyzer = createCryptoAnalyzer();
