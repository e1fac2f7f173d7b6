// The contract every component identifier follows (modelled on syft's catalogers): it declares which files it
// reads, and turns one file into candidate components with evidence. The inventory analyzer selects files, opens
// them once, runs the identifiers, stamps `foundBy`, contains crashes and merges candidates per image.
import type { FileIndex } from '../file-index.js';
import type { Component, Evidence, FileNode, Problem } from '../types.js';

/** One identification of one component in one file, before merging. */
export interface Candidate {
  /** Merge key: the family id ('openssl', 'busybox') or, for package databases, the mapped family or package name. */
  key: string;
  name: string;
  version?: string;
  /** Upstream release used to merge database records with binaries ('2019.78-5' → '2019.78'). */
  matchVersion?: string;
  type: Component['type'];
  cpe?: string;
  purl?: string;
  supplier?: string;
  licenses?: string[];
  confidence: number;
  /** FileNode.path of the file the component lives in (the binary, or the database that lists it). */
  path: string;
  /** True when `path` is the component's own file (hash it); false for a database record naming other files. */
  primaryFile: boolean;
  evidence: Evidence;
  architecture?: string;
  /** Merge keys or sonames this candidate depends on (resolved to component refs after merging). */
  dependsOn?: string[];
  /** Names other candidates can depend on: sonames for libraries, package names for packages. */
  provides?: string[];
  /** Files (FileNode.path) a package database says belong to this package. */
  files?: string[];
}

/** What an identifier gets for each selected file. Reads are cached: the file is read at most once. */
export interface FileView {
  node: FileNode;
  /** The first bytes (up to 4 KiB). */
  head(): Promise<Buffer>;
  /** The whole file; only for files up to `maxWholeRead` (text databases, small binaries). */
  text(): Promise<string>;
  /** Bounded chunks with overlap, for scanning large files without holding them. */
  chunks(): AsyncIterable<{ offset: number; data: Buffer }>;
}

/** Facts about one executable file, shared by the binary identifiers with the analyzer (architecture, links). */
export interface BinaryFacts {
  architecture?: string;
  soname?: string;
  /** DT_NEEDED sonames or imported DLL names. */
  needed?: string[];
  buildId?: string;
}

export interface IdentifierContext {
  index: FileIndex;
  /** FileNode.path → facts recorded by the ELF and PE identifiers. */
  binaries: Map<string, BinaryFacts>;
  /** Paths of files that were unpacked into children (their content is identified in the children). */
  containers: Set<string>;
  /** Records a skipped or partly parsed input (the identifier id is filled in by the analyzer). */
  note(problem: Omit<Problem, 'source'>): void;
}

export interface Identifier {
  /** Kebab-case id, stamped into Component.foundBy. */
  id: string;
  /** Evidence method names it produces, e.g. ['opkg-status']. */
  description: string;
  /** Which regular files it reads. `head` is the first bytes of the file. */
  selects(node: FileNode, head: Buffer): boolean;
  identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]>;
  /**
   * True when identify() depends only on the file's bytes, its path inside its filesystem (fsPath) and whether it
   * was unpacked, and names the file only in its candidates' `path` and `evidence.path`: the analysis cache then
   * keeps its candidates by content (engine/analysis-cache.ts). Never for an identifier that reads other files.
   */
  perFile?: boolean;
}

/** Files above this size are never read whole (text databases are far smaller). */
export const MAX_WHOLE_READ = 16 * 1024 * 1024;
