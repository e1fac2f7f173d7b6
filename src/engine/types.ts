// The engine's output: a plain value, no HTTP and no database. Everything the service stores about a scan,
// and everything `firmscope scan` prints, is a ScanResult.
import type { KernelEvidence } from './vulns/kernel-evidence.js';

export interface Hashes {
  sha256: string;
  sha1: string;
  md5: string;
}

/** One node of the extracted tree: the image itself, every extracted file, directory and symlink. */
export interface FileNode {
  /** Path relative to the scan's extraction root, '/'-separated; the image itself is its file name. */
  path: string;
  /** Path inside the innermost filesystem or archive it came from, starting with '/' (e.g. '/usr/sbin/dropbear'). */
  fsPath: string;
  /** 'file' | 'directory' | 'symlink' | 'hardlink' | 'device' | 'fifo' | 'socket' */
  kind: 'file' | 'directory' | 'symlink' | 'hardlink' | 'device' | 'fifo' | 'socket';
  size: number;
  /** Detected content type: 'elf', 'pe', 'text', 'squashfs', 'data', ... (see engine/file-type.ts). */
  type: string;
  sha256?: string;
  /** Handler (format id) that produced this node, e.g. 'squashfs-v4'; absent for the image itself. */
  format?: string;
  /** Path of the node this one was extracted from; absent for the image itself. */
  parent?: string;
  /** Offset of the chunk inside the parent that produced this node. */
  offset?: number;
  /** Nesting depth: 0 for the image. */
  depth: number;
  mode?: number;
  uid?: number;
  gid?: number;
  mtime?: number;
  /** Symlink or hardlink target, as stored (never followed). */
  linkTarget?: string;
  /** Extra format-specific facts: UEFI GUID and UI name, uImage name, ... */
  meta?: Record<string, unknown>;
  /** Files: the first bytes (at most HEAD_BYTES_KEPT), base64, for a hex view once the extracted files are gone. */
  head?: string;
}

/** How many of a file's first bytes a scan keeps (FileNode.head). */
export const HEAD_BYTES_KEPT = 256;

/** A region of a file that no handler recognised (or a handler rejected). */
export interface UnknownChunk {
  path: string;
  offset: number;
  size: number;
}

/**
 * How much a problem matters for trusting the result: 'info' (a carving candidate that turned out not to be the
 * format, a loop skipped), 'warning' (something partly read), 'error' (a container that could not be decoded, a
 * limit hit, a disk error: the analysis is incomplete). See engine/problems.ts for the rules.
 */
export type ProblemLevel = 'info' | 'warning' | 'error';

/** Something that went wrong but did not stop the scan: a corrupt chunk, a limit, a parser error. */
export interface Problem {
  /** Where: a node path, optionally with an offset. */
  path?: string;
  offset?: number;
  /** Who: handler, identifier, detector id. */
  source: string;
  /** What happened. */
  kind: 'error' | 'limit' | 'warning' | 'skipped';
  /** Set by a producer that knows better than the rule on `kind`; every problem of a ScanResult has one. */
  level?: ProblemLevel;
  message: string;
}

export interface Evidence {
  /** Path in the image (FileNode.path). */
  path: string;
  /** Identification method, e.g. 'opkg-status', 'version-signature', 'elf-soname'. */
  method: string;
  /** The matched string or record, trimmed. */
  match?: string;
  offset?: number;
}

export interface Component {
  /** Stable within a scan: `${name}@${version ?? ''}` normalised. */
  ref: string;
  name: string;
  version?: string;
  type: 'application' | 'library' | 'operating-system' | 'firmware' | 'framework' | 'device' | 'file';
  supplier?: string;
  licenses?: string[];
  cpe?: string;
  purl?: string;
  /** 0..1: how sure the identification is. */
  confidence: number;
  /** Paths (FileNode.path) where it was found. */
  paths: string[];
  /** Hashes of the primary file (first path) when the component is a file. */
  hashes?: Hashes;
  architecture?: string;
  evidence: Evidence[];
  /** Identifier ids that found it. */
  foundBy: string[];
  /** refs of components this one depends on (from DT_NEEDED or package databases). */
  dependsOn?: string[];
}

export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'informational';
/** Every severity, most severe first (report order). */
export const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'informational'];
export type FindingType = 'knownVulnerability' | 'maliciousCode' | 'dependencyVulnerability';

export interface FindingOccurrence {
  path: string;
  offset?: number;
  evidence?: string;
}

export interface Cvss {
  cvssV2?: { baseScore: number; vector: string };
  cvssV3?: { baseScore: number; vector: string; version?: string };
  cvssV4?: { baseScore: number; vector: string };
}

/** A finding as the engine produces it; the service adds ids, issue status and history. */
export interface EngineFinding {
  /** Stable identity across images: hash of type + CVE/rule + component + location. Never offsets or times. */
  fingerprint: string;
  findingType: FindingType;
  /** Short name, e.g. 'CVE-2021-42386' or 'private-key-in-image'. */
  pname: string;
  /** Human title. */
  name: string;
  title?: string;
  description?: string;
  severity: Severity;
  identifiers: Array<{ cve?: string; cwe?: string; ghsa?: string; osv?: string; rule?: string }>;
  cvss?: Cvss;
  cvssLatestBaseScore?: number;
  epss?: { probability: number; percentile: number };
  isKev?: boolean;
  /** When CISA added the vulnerability to its Known Exploited Vulnerabilities catalogue, and the remediation due date it set for US federal agencies (ISO dates); present when isKev and the catalogue gave them. */
  kev?: { dateAdded: string; dueDate?: string };
  references?: Array<{ url: string; description?: string }>;
  recommendedAction?: string;
  knownFixedVersion?: string;
  component?: { ref: string; name: string; version?: string; cpe?: string; purl?: string };
  occurrences: FindingOccurrence[];
  /** How a match was made (matcher, criterion, range) for dependency vulnerabilities. */
  match?: Record<string, unknown>;
  /** How sure a dependency vulnerability's match is (vulns/confidence.ts). */
  matchConfidence?: MatchConfidence;
  /** Whether a kernel CVE's affected code is built into the image's kernel (vulns/kernel-triage.ts). */
  applicability?: Applicability;
}

export interface Applicability {
  verdict: 'applicable' | 'not-applicable' | 'unknown';
  /** The triage rule that decided (vulns/kernel-triage.ts KernelRule): 'config-option-off', 'symbol-present', ... */
  rule?: string;
  reason: string;
  /** What the verdict rests on: the configuration's source and one line per affected file. */
  evidence: string[];
}

/**
 * How sure a dependency vulnerability's match is, as a label and a score from 0 to 1: 'package-advisory' (the
 * package's own ecosystem advisory and version scheme), 'exact-cpe' (a CPE the record lists, with its version or
 * range), 'cpe-all-versions' (a listed CPE for every version), 'product-alias' (a CNA name mapped to the CPE),
 * 'name-only' (CNA vendor and product names normalised), 'platform-unknown' (a configuration that needs a
 * platform the image does not identify); for kernel CVEs after triage 'kernel-code-built', 'kernel-code-not-built' or
 * 'kernel-code-unknown' (vulns/kernel-triage.ts).
 */
export interface MatchConfidence {
  label: 'package-advisory' | 'exact-cpe' | 'cpe-all-versions' | 'product-alias' | 'name-only' | 'platform-unknown'
    | 'kernel-code-built' | 'kernel-code-not-built' | 'kernel-code-unknown';
  score: number;
}

export interface CryptoAsset {
  /** Stable id within a scan. */
  ref: string;
  assetType: 'algorithm' | 'certificate' | 'private-key' | 'public-key' | 'protocol' | 'related-crypto-material' | 'library';
  name: string;
  /** Algorithm facts (primitive, parameter set, mode, key size, curve, ...) and certificate facts. */
  details: Record<string, unknown>;
  paths: string[];
  evidence: Evidence[];
  /** Component refs that use it, where known. */
  components?: string[];
}

/** ELF hardening, computed as `checksec` does (see engine/binaries/elf-hardening.ts for each rule). */
export interface ElfHardening {
  nx: boolean;
  /** A position-independent executable, or a shared object (checksec's "DSO"). */
  pie: boolean;
  relro: 'full' | 'partial' | 'none';
  canary: boolean;
  fortify: boolean;
  stripped: boolean;
  rpath: string | null;
  runpath: string | null;
}

/** PE hardening from DllCharacteristics, the load config directory and the security directory. */
export interface PeHardening {
  nx: boolean;
  aslr: boolean;
  highEntropyVa: boolean;
  cfg: boolean;
  /** Registered SEH handlers (or no SEH at all) on x86; always true on 64-bit, whose unwinding is table-based. */
  safeSeh: boolean;
  forceIntegrity: boolean;
  /** An Authenticode (PKCS#7) signature is attached; it is not verified. */
  signed: boolean;
}

/** A risky libc function a binary uses (strcpy, sprintf, gets, system, popen, exec*, the scanf family). */
export interface BinaryUnsafeFunction {
  /** Canonical name: 'strcpy', 'sscanf', 'popen', ... */
  name: string;
  /** The symbol as the binary names it: '__isoc99_sscanf', '_popen', ... */
  symbol: string;
  /** Imported from a shared library, or linked into the binary (a defined symbol). */
  linkage: 'imported' | 'static';
  /** Direct call sites found in the code; absent where the architecture's calls are not decoded. */
  callSites?: number;
  /** Named functions holding those call sites (nearest preceding function symbol; sites in unnamed code are not listed). */
  callers: Array<{ function: string; callSites: number }>;
}

interface BinaryBase {
  /** FileNode.path of the binary. */
  path: string;
  /** 'kernel': an operating-system kernel image (vmlinux), whose mitigations are not a program's. */
  type: 'executable' | 'shared-object' | 'kernel';
  /** Normalised architecture: 'x86_64', 'arm', 'aarch64', 'mipsel', ... */
  arch: string;
  bits: 32 | 64;
  endian: 'le' | 'be';
  unsafeFunctions: BinaryUnsafeFunction[];
  /** True when call sites were decoded (x86, x86-64, ARM/Thumb, AArch64, MIPS); false means imports were counted. */
  callSitesDecoded: boolean;
  /** Accepts connections (socket with bind/listen/accept) or is named like a network daemon (binaries/network-facing.ts). */
  networkFacing: boolean;
  /** Uses of unsafe functions: call sites where decoded, otherwise the number of unsafe functions imported or linked. */
  unsafeUses: number;
  symbols: {
    /** Undefined dynamic symbols (ELF) or imported functions (PE). */
    imported: number;
    /** Defined global dynamic symbols (ELF) or exported functions (PE). */
    exported: number;
    /** Defined .symtab symbols (ELF; 0 when stripped) or COFF symbols (PE, not read: 0); with a debug file, its function symbols. */
    defined: number;
    /**
     * Where the function names that name callers came from: the binary's own .symtab (or a matched ELF debug
     * file's), a matched PDB's publics, a matched debug file's DWARF, or none (ELF callers may then still be named
     * from exported dynamic symbols). Absent in results stored before it existed.
     */
    source?: 'symtab' | 'pdb' | 'dwarf' | 'none';
    /** The attached debug file (its name) the names came from. */
    debugFile?: string;
  };
}

/** One executable or shared object of the image, with its hardening and its unsafe function uses. */
export type BinaryInfo = (BinaryBase & { format: 'elf'; hardening: ElfHardening }) | (BinaryBase & { format: 'pe' | 'te'; hardening: PeHardening });

export interface ImageInfo {
  fileName: string;
  size: number;
  hashes: Hashes;
  /** Detected type of the whole image (engine/file-type.ts). */
  type: string;
}

export interface ScanStats {
  durationMs: number;
  filesExtracted: number;
  bytesExtracted: number;
  formats: Record<string, number>;
}

/** What a person needs to know before trusting a scan's result (engine/problems.ts computes it). */
export interface ScanSummary {
  filesExtracted: number;
  bytesExtracted: number;
  /** Accepted chunks per handler id, at every depth. */
  formats: Record<string, number>;
  /** Share of the image's own bytes (0..1) inside chunks of a recognised format. */
  coverage: number;
  problems: Record<ProblemLevel, number>;
  /** Wall time per phase in milliseconds: 'hash', 'unpack', then each analyzer's phase. */
  phases: Record<string, number>;
  durationMs: number;
  /** False when any problem is an error: part of the image was not analysed. */
  complete: boolean;
  /** Why it is incomplete, one line per cause (empty when complete). */
  incompleteReasons: string[];
  /** Kernel CVE triage: findings per verdict and those each rule removed (vulns/kernel-triage.ts); absent without kernel findings. */
  kernelTriage?: { applicable: number; 'not-applicable': number; unknown: number; removedByRule: Record<string, number> };
  /** Identity of the malicious-code rules it ran with (malware/rule-catalog.ts ruleSetDigest); absent in older results. */
  ruleSet?: string;
  /** How much came from the analysis cache (engine/analysis-cache.ts); absent when the scan ran without one. */
  cache?: { image: 'hit' | 'miss'; filesReused: number; filesAnalysed: number };
}

export interface ScanResult {
  engineVersion: string;
  image: ImageInfo;
  files: FileNode[];
  unknownChunks: UnknownChunk[];
  components: Component[];
  findings: EngineFinding[];
  cryptoAssets: CryptoAsset[];
  /** Executables and shared objects with hardening and unsafe function uses (absent in results made before it). */
  binaries?: BinaryInfo[];
  /** What the image says about its kernel's build (vulns/kernel-evidence.ts), kept so re-matching can triage; absent without a kernel. */
  kernelEvidence?: KernelEvidence;
  /** Every problem of a result the engine returns has its level (results stored by older versions may not). */
  problems: Problem[];
  stats: ScanStats;
  /** Always set by the engine; absent only in results stored by versions before it existed. */
  summary?: ScanSummary;
}

/** Why a vulnerability does not affect a product: the OpenVEX 0.2.0 justification labels (status not_affected). */
export const VEX_JUSTIFICATIONS = [
  'component_not_present', 'vulnerable_code_not_present', 'vulnerable_code_not_in_execute_path',
  'vulnerable_code_cannot_be_controlled_by_adversary', 'inline_mitigations_already_exist',
] as const;
export type VexJustification = (typeof VEX_JUSTIFICATIONS)[number];
