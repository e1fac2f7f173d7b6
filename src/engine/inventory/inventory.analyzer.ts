// The inventory stage: runs every identifier on the files it selects (each file's head read once, contents
// through a cached view), stamps foundBy, contains identifier crashes as problems, merges candidates into
// components, resolves dependencies (package Depends, DT_NEEDED) and adds hashes, architecture and build-ids.
import type { AnalysisContext, Analyzer } from '../analyzer.js';
import { hashFile } from '../hash.js';
import type { Component, FileNode, Hashes, Problem } from '../types.js';
import { createFileView } from './file-view.js';
import { facetLookup, type FacetLookup } from '../analysis-cache.js';
import { ReadScratch } from '../file-read.js';
import type { BinaryFacts, Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { identifiers as defaultIdentifiers } from './identifiers.js';
import { attributeHeaderVersions, ownerOf, separateHeaderVersions } from './header-versions.js';
import { mergeCandidates, type StampedCandidate } from './merge.js';
import { attachModulesToPlatform, inferPlatformRelease } from './platform-release.js';

const HEAD_SIZE = 4096;
/** Files whose heads are held at once (4 KiB each) while their cached results are looked up together. */
const WINDOW = 256;

/** A cached candidate of a per-file identifier, naming the file by its path in this tree. */
const withPath = (c: Candidate, path: string): Candidate => ({ ...c, path, evidence: { ...c.evidence, path } });

/**
 * What a per-file identifier gave for one file, as the analysis cache keeps it: its candidates, and the binary
 * facts and notes it recorded for the file (kept without the file's path, which a cached copy takes anew).
 */
interface FileOutput {
  candidates: Candidate[];
  binary?: BinaryFacts;
  notes?: Array<Omit<Problem, 'source' | 'path'>>;
}

export function createInventoryAnalyzer(identifiers: readonly Identifier[] = defaultIdentifiers): Analyzer {
  return {
    id: 'inventory',
    phase: 'inventory',
    async run(ctx: AnalysisContext): Promise<void> {
      const binaries = new Map<string, BinaryFacts>();
      const containers = new Set(ctx.index.nodes.map((n) => n.parent).filter((p): p is string => p !== undefined));
      const candidates: StampedCandidate[] = [];
      const files = ctx.index.files();
      const perFile = identifiers.filter((i) => i.perFile);
      const scratch = new ReadScratch(); // each file's view reads into it in turn (file-view.ts)
      // Files go through in windows: their heads are read, the identifiers that select each are noted, and each
      // per-file identifier looks its cached results up for the files it selects, in one batch per window (a
      // lookup of every file for every identifier made a key for each pair, most of them for nothing).
      for (let from = 0; from < files.length; from += WINDOW) {
        const window = files.slice(from, from + WINDOW).filter((n) => n.size > 0);
        const selections: Array<{ node: FileNode; head: Buffer; selecting: Identifier[] }> = [];
        for (const node of window) {
          ctx.signal.throwIfAborted();
          const head = await ctx.index.head(node, HEAD_SIZE);
          selections.push({ node, head, selecting: identifiers.filter((identifier) => identifier.selects(node, head)) });
        }
        const cached = new Map<string, FacetLookup<FileOutput>>();
        for (const identifier of perFile) {
          // identifiers that read only the file: looked up by content (an unpacked container is identified anew)
          const nodes = selections.filter((s) => s.selecting.includes(identifier) && !containers.has(s.node.path)).map((s) => s.node);
          cached.set(identifier.id, await facetLookup<FileOutput>(ctx.fileCache, `inventory/${identifier.id}`, '', nodes));
        }
        for (const { node, head, selecting } of selections) {
          ctx.signal.throwIfAborted();
          const view = createFileView(ctx.index, node, head, scratch);
          for (const identifier of selecting) {
            const ictx: IdentifierContext = {
              index: ctx.index,
              binaries,
              containers,
              note: (p) => ctx.problems.push({ ...p, source: identifier.id }),
            };
            try {
              const lookup = containers.has(node.path) ? undefined : cached.get(identifier.id);
              const reused = lookup?.get(node);
              const found = reused ? replayOutput(reused, node.path, binaries, ictx) : await identifyKept(identifier, view, ictx, lookup);
              for (const c of found) candidates.push({ ...c, foundBy: identifier.id });
            } catch (error) {
              const message = error instanceof Error ? error.message : String(error);
              ctx.problems.push({ path: node.path, source: identifier.id, kind: 'error', message: `identifier failed: ${message}` });
            }
          }
        }
        ctx.progress(Math.floor((Math.min(files.length, from + WINDOW) / Math.max(1, files.length)) * 90));
      }
      const { kept, header } = separateHeaderVersions(candidates, binaries);
      let merged = mergeCandidates(kept);
      const primaryPaths = (c: Component): string[] => merged.links.get(c.ref)?.primaryPaths ?? [];
      // A string is only build evidence when the loaded library has a version of its own (a program and the
      // library of its own project, like ip6tables and libip6tc, share the release: the string is the version).
      const ownVersion = header.filter((h) => ownerOf(h, merged.components, primaryPaths)?.version === undefined);
      if (ownVersion.length) merged = mergeCandidates([...kept, ...ownVersion.map((h) => h.candidate)]);
      ctx.problems.push(...merged.problems);
      attributeHeaderVersions(header.filter((h) => !ownVersion.includes(h)), merged.components, primaryPaths, ctx.problems);
      await finish(ctx, merged.components, merged.links, binaries);
      inferPlatformRelease(merged.components);
      attachModulesToPlatform(merged.components);
      ctx.components.push(...merged.components.sort((a, b) => a.name.localeCompare(b.name) || (a.version ?? '').localeCompare(b.version ?? '')));
      ctx.progress(100);
    },
  };
}

/** A per-file identifier's cached output, given back for the file at `path`: candidates returned, the rest recorded. */
function replayOutput(output: FileOutput, path: string, binaries: Map<string, BinaryFacts>, ictx: IdentifierContext): Candidate[] {
  if (output.binary) binaries.set(path, output.binary);
  for (const note of output.notes ?? []) ictx.note({ ...note, path });
  return output.candidates.map((c) => withPath(c, path));
}

/**
 * Runs an identifier on one file and, for a per-file identifier (`lookup`), keeps all it gave in the analysis
 * cache: its candidates, and the binary facts and notes it recorded for the file (the ELF and PE identifiers').
 * An output that names another file is not kept.
 */
async function identifyKept(identifier: Identifier, view: FileView, ictx: IdentifierContext, lookup: FacetLookup<FileOutput> | undefined): Promise<Candidate[]> {
  if (!lookup) return identifier.identify(view, ictx);
  const { path } = view.node;
  const notes: Array<Omit<Problem, 'source'>> = [];
  const before = ictx.binaries.get(path);
  const candidates = await identifier.identify(view, { ...ictx, note: (p) => (notes.push(p), ictx.note(p)) });
  const binary = ictx.binaries.get(path);
  if (notes.every((n) => n.path === path)) {
    const kept = notes.map(({ path: _, ...note }) => note);
    lookup.put(view.node, { candidates, ...(binary && binary !== before ? { binary } : {}), ...(kept.length ? { notes: kept } : {}) });
  }
  return candidates;
}

/** Dependencies, architecture, build-id evidence and hashes of the primary file. */
async function finish(
  ctx: AnalysisContext,
  components: Component[],
  links: ReturnType<typeof mergeCandidates>['links'],
  binaries: Map<string, BinaryFacts>,
): Promise<void> {
  const providers = new Map<string, Set<string>>();
  const provide = (name: string, ref: string): void => {
    const set = providers.get(name) ?? new Set<string>();
    set.add(ref);
    providers.set(name, set);
  };
  for (const c of components) {
    const link = links.get(c.ref)!;
    for (const name of link.provides) provide(name, c.ref);
    for (const p of link.primaryPaths) {
      const soname = binaries.get(p)?.soname;
      if (soname) provide(soname, c.ref);
      // Libraries without a SONAME, and DLLs (imported by file name, case-insensitively).
      const node = ctx.index.get(p);
      if (node && binaries.has(p)) provide(node.fsPath.slice(node.fsPath.lastIndexOf('/') + 1).toLowerCase(), c.ref);
    }
  }
  const hashCache = new Map<string, Promise<Hashes>>();
  for (const c of components) {
    const link = links.get(c.ref)!;
    const needed = new Set(link.dependsOn);
    for (const p of link.primaryPaths) for (const n of binaries.get(p)?.needed ?? []) needed.add(n);
    const refs = new Set<string>();
    for (const n of needed) for (const r of providers.get(n) ?? providers.get(n.toLowerCase()) ?? []) if (r !== c.ref) refs.add(r);
    if (refs.size) c.dependsOn = [...refs].sort();
    // The primary (hashed) file: a parsed binary when there is one (a decompressed kernel over its container).
    const primary = link.primaryPaths.find((p) => binaries.has(p)) ?? link.primaryPaths[0];
    if (primary === undefined) continue;
    // Keep the primary file first in paths, as the type documents.
    c.paths = [primary, ...c.paths.filter((p) => p !== primary)];
    const facts = binaries.get(primary);
    // The machine of the primary binary wins over a package-manager architecture name (kept in the purl).
    if (facts?.architecture) c.architecture = facts.architecture;
    if (facts?.buildId) c.evidence.push({ path: primary, method: 'elf-build-id', match: facts.buildId });
    const node = ctx.index.get(primary);
    if (!node) continue;
    let hashes = hashCache.get(primary);
    if (!hashes) {
      hashes = hashFile(ctx.index.absolutePath(node));
      hashCache.set(primary, hashes);
    }
    c.hashes = await hashes;
  }
}

export const inventoryAnalyzer = createInventoryAnalyzer();
