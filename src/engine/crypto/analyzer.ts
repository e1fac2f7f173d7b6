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
import { detectFile } from './detect-file.js';
import type { AlgorithmHit, FileDetections } from './detections.js';
import { validityFacts } from './certificates.js';
import { facetLookup } from '../analysis-cache.js';
import { restoreOutput } from '../image-cache.js';
import { cryptoFindings } from './findings.js';
import { elfCryptoImports } from './elf-imports.js';
import type { StreamGap } from './scanner.js';

export interface CryptoAnalyzerOptions {
  /** Clock for expiry checks (tests pin it). */
  now?: () => Date;
  /** Files larger than this are not scanned (bytes). */
  maxFileSize?: number;
}

const MAX_CONFIG = 1024 * 1024;
/** Read size of a file's single pass (as FileIndex.stream's). */
const CHUNK = 1024 * 1024;

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

/** Keys compiled into a program (test keys of `openssl speed`, vendor signing keys) are told apart from key files. */
function executableKind(magic: Buffer): 'ELF' | 'PE' | undefined {
  const text = magic.toString('latin1');
  return text === '\x7fELF' ? 'ELF' : text.startsWith('MZ') ? 'PE' : undefined;
}

/**
 * The file in 1 MiB chunks through its reader (views of kept contents; no second open for a large file), with the
 * ranges an encoded format occupies (`skip`, in offset order) passed over as gaps: a compressed stream's or a
 * SquashFS's bytes are searched decoded, in the extracted files.
 */
async function* chunksOf(read: (offset: number, length: number) => Promise<Buffer>, size: number, skip: ReadonlyArray<readonly [number, number]> = []): AsyncGenerator<Buffer | StreamGap> {
  let at = 0;
  for (const [start, end] of [...skip, [size, size] as const]) {
    const stop = Math.min(start, size);
    while (at < stop) {
      const chunk = await read(at, Math.min(CHUNK, stop - at));
      if (chunk.length === 0) return;
      yield chunk;
      at += chunk.length;
    }
    const resume = Math.min(end, size);
    if (resume > at) {
      yield { skip: resume - at };
      at = resume;
    }
  }
}

/** What a file's bytes (and its path) give, before the parts that depend on its place in the tree: the cached facet. */
interface CryptoFileFacts {
  detections: FileDetections;
  imports: AlgorithmHit[];
  executable?: 'ELF' | 'PE';
}

/** Every read of the file goes through one reader: its kept contents, or one open handle for a large file. */
async function scanNode(ctx: AnalysisContext, node: FileNode, now: Date): Promise<CryptoFileFacts> {
  const reader = await ctx.index.reader(node);
  try {
    const chunks = chunksOf(reader.read, node.size, ctx.index.encodedRanges(node));
    const detections = await detectFile(node.path, chunks, reader.read, { now, signal: ctx.signal });
    const imports = await elfCryptoImports({ size: node.size, read: reader.read });
    const executable = executableKind(await reader.read(0, 4));
    return { detections, imports, ...(executable ? { executable } : {}) };
  } finally {
    await reader.close();
  }
}

/** A cached file's results get its path in this tree, and its certificates are checked against today's date again. */
function restamp(facts: CryptoFileFacts, node: FileNode, now: Date): CryptoFileFacts {
  facts.detections.path = node.path;
  for (const { certificate } of facts.detections.materials) {
    if (certificate) Object.assign(certificate, validityFacts(new Date(certificate.notBefore), new Date(certificate.notAfter), now));
  }
  return facts;
}

export function createCryptoAnalyzer(options: CryptoAnalyzerOptions = {}): Analyzer {
  const maxFileSize = options.maxFileSize ?? 1024 * 1024 * 1024;
  return {
    id: 'crypto',
    phase: 'cryptographic material',
    async run(ctx: AnalysisContext): Promise<void> {
      const now = options.now?.() ?? new Date();
      const files = ctx.index.files().filter((n) => n.size > 0 && n.size <= maxFileSize);
      const configs = new Set(ctx.index.glob(...CONFIG_GLOBS).map((n) => n.path));
      // Deepest first, so a parent knows what its children already reported.
      const ordered = [...files].sort((a, b) => b.depth - a.depth);
      const seenBelow = new Map<string, Set<string>>();
      const builder = new AssetBuilder(ctx.components);
      const cache = await facetLookup<CryptoFileFacts>(ctx.fileCache, 'crypto', `max-size ${maxFileSize}`, ordered);
      let done = 0;
      for (const node of ordered) {
        ctx.signal.throwIfAborted();
        try {
          const cached = cache.get(node);
          const facts = cached ? restamp(cached, node, now) : await scanNode(ctx, node, now);
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
