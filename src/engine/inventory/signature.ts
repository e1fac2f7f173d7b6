// Version signatures for binaries (syft's binary classifiers as data): one entry per component family with its
// CPE and purl names, file-name hints and context patterns. Matching is two-stage so a file is read once and
// every pattern runs in one pass: a literal search over the bytes finds the patterns' needles (NeedleSearch, one
// table probe per byte), then each hit's own context regex runs on a small window around it. A version is taken
// only from a match that covers the needle, so 'version %s' formats, help texts and other libraries' strings do
// not produce components.
import picomatch from 'picomatch';
import type { Component } from '../types.js';
import { PairSearch, PairTables } from '../wasm/search.js';

export interface SignaturePattern {
  /** Literal text searched first; the regex only runs around its hits. */
  needle: string;
  /** Context regex over the latin1 window around a hit (NUL bytes appear as \0). The first defined capture group is the version. */
  regex: RegExp;
  /** Only in files whose name matches the family's `files` hints. */
  hintOnly?: boolean;
  /** Default 0.9; lower for weaker context (adjacent strings), higher for a full banner. */
  confidence?: number;
  /** The regex proves the family is present but carries no version (no capture group). */
  presence?: boolean;
  /**
   * For versions a program keeps only as integers in its code (OpenSBI's banner `v%d.%d`): reads the version from
   * the chunk's bytes, given the offset of the needle's hit in the chunk and the chunk's offset in the file. A
   * presence pattern whose lookup succeeds yields that version; `detail` is appended to the evidence, and
   * `confidence` (default 0.9) replaces the pattern's.
   */
  fromCode?: (data: Buffer, at: number, chunkOffset: number) => { version: string; detail: string; confidence?: number } | undefined;
}

/**
 * For builds that keep the version as a bare string: in a file matching the hints and containing `marker`,
 * NUL-delimited strings matching `version` are candidates; exactly one distinct value is required.
 */
export interface StandalonePattern {
  marker: string;
  version: RegExp;
  confidence?: number;
}

export interface VersionSignature {
  /** Family id and merge key: 'openssl', 'busybox'. */
  id: string;
  /** Component name as reported. */
  name: string;
  type: Component['type'];
  cpe?: { vendor: string; product: string; part?: 'a' | 'o' | 'h' };
  purl: { name: string; namespace?: string };
  supplier?: string;
  /** Basename globs of the family's own files (executables, libraries). */
  files?: string[];
  patterns: SignaturePattern[];
  standalone?: StandalonePattern[];
  /** Families whose presence in the same file makes this one a false positive (libjpeg-turbo over libjpeg). */
  excludedBy?: string[];
  /**
   * Platform-firmware products (BIOS vendors): only in firmware images and their modules, never in an ELF program
   * (a Linux tool that lists BIOS vendors, such as dmidecode or fwupd, names them without being them) nor in a Linux
   * kernel's boot image (the EFI stub of Debian's 6.1 kernel names 'American Megatrends' in UTF-16 for a quirk).
   */
  firmwareOnly?: boolean;
  /** Rewrites a captured version (e.g. libxml2 '20910' → '2.9.10'). */
  normalize?: (version: string) => string;
  /** Splits a version for the CPE (e.g. OpenSSH '8.4p1' → version '8.4', update 'p1'). */
  cpeVersion?: (version: string) => { version: string; update?: string };
}

export interface SignatureHit {
  signature: VersionSignature;
  /** Absent for presence-only patterns. */
  version?: string;
  /** The matched text, NULs shown as '\0' separators, trimmed. */
  match: string;
  offset: number;
  confidence: number;
}

const WINDOW_BEFORE = 96;
// Long enough for a distribution kernel banner (the upstream release follows the compiler and linker names).
const WINDOW_AFTER = 320;
/** Bounds the work per needle and chunk on pathological inputs (a needle repeated millions of times). */
const MAX_HITS_PER_NEEDLE = 4096;
const VERSION_SHAPE = /^\d[\w.+~-]{0,39}$/;

/**
 * Every needle occurrence in a chunk, in the order a global regex of the needles (longest first, restarted one
 * byte after each match) reports them: by position, and at each position the longest needle that matches there.
 * Needles are indexed by their first two bytes; a 64 Ki table says which byte pairs start one, so most positions
 * cost one probe and only those few are compared. About three times as fast as that regex over the latin1 text
 * (measured on the OpenWrt corpus image's files, bench/inventory/needle-search.ts), and the chunk need not become
 * a string at all. A second table, of the bytes that may follow each pair (as the unpacker's signature scanner
 * has), turns away most positions whose pair is common before the needles are walked: a fifth less time over
 * the bench image's files (1.90-2.04 s -> 1.51-1.58 s for 348 MB, 2026-11-29), and a needle's first four bytes
 * are tested too (2.9 -> 0.97 million candidates over the bench tree, in the same time). The pass with these
 * tables is the chunk search's, in WebAssembly (wasm/search.ts, PairSearch); the needles are compared here.
 */
export class NeedleSearch {
  /** Needles by first byte pair (first byte << 8 | second), longest first (a one-byte needle under every pair it starts). */
  private readonly byPair: Array<Array<{ needle: string; bytes: Buffer }> | undefined> = new Array(1 << 16);
  /** One-byte needles by their byte, for the chunk's last position (which starts no pair). */
  private readonly single: Array<string | undefined> = new Array(256);
  /** The pass over the bytes (in WebAssembly): the positions whose pair starts a needle and whose next byte may follow. */
  private readonly pairs: PairSearch;

  constructor(needles: Iterable<string>) {
    // each needle's first pair, and its third byte (any byte for a needle of fewer than three)
    const tables = new PairTables();
    for (const needle of needles) {
      if (needle.length === 0) throw new Error('a signature needle is empty');
      // A needle outside latin1 never occurs in latin1 text.
      if (/[^\x00-\xff]/.test(needle)) continue;
      const bytes = Buffer.from(needle, 'latin1');
      if (bytes.length === 1) this.single[bytes[0]!] = needle;
      const pairs = bytes.length === 1 ? Array.from({ length: 256 }, (_, next) => (bytes[0]! << 8) | next) : [(bytes[0]! << 8) | bytes[1]!];
      for (const pair of pairs) {
        const list = (this.byPair[pair] ??= []);
        list.push({ needle, bytes });
        list.sort((a, b) => b.bytes.length - a.bytes.length);
        tables.add(pair, bytes[2], bytes.length >= 4 ? bytes.readInt32LE(0) : undefined);
      }
    }
    this.pairs = new PairSearch(tables);
  }

  /** Calls `onHit` for each occurrence, in order. */
  scan(data: Buffer, onHit: (index: number, needle: string) => void): void {
    const end = data.length - 1;
    if (end > 0) {
      this.pairs.search(data, end, (i) => {
        for (const { needle, bytes } of this.byPair[(data[i]! << 8) | data[i + 1]!]!) {
          if (i + bytes.length > data.length) continue;
          // The first two bytes matched (one for a one-byte needle); compare the rest in place, which is cheaper
          // than a native call for needles this short.
          let k = 2;
          while (k < bytes.length && data[i + k] === bytes[k]) k++;
          if (k >= bytes.length) {
            onHit(i, needle);
            break;
          }
        }
      });
    }
    const last = end >= 0 ? this.single[data[end]!] : undefined;
    if (last !== undefined) onHit(end, last);
  }
}

/** A compiled table: the needle search plus the patterns per needle. */
export class SignatureMatcher {
  private readonly needles: NeedleSearch;
  private readonly byNeedle = new Map<string, Array<{ signature: VersionSignature; pattern: SignaturePattern }>>();
  private readonly hints = new Map<VersionSignature, (name: string) => boolean>();

  constructor(readonly signatures: readonly VersionSignature[]) {
    for (const signature of signatures) {
      if (signature.files?.length) this.hints.set(signature, picomatch(signature.files, { nocase: true }));
      for (const pattern of signature.patterns) {
        const list = this.byNeedle.get(pattern.needle) ?? [];
        list.push({ signature, pattern });
        this.byNeedle.set(pattern.needle, list);
      }
    }
    this.needles = new NeedleSearch(this.byNeedle.keys());
  }

  /** True when the file's base name matches the signature's hints. */
  hinted(signature: VersionSignature, baseName: string): boolean {
    return this.hints.get(signature)?.(baseName) ?? false;
  }

  /**
   * Scans one chunk (starting at file offset `base`) and adds hits to `out`, keyed by family and version so
   * overlapping chunks and repeated strings count once. Context regexes see the latin1 text of a window.
   */
  scanChunk(data: Buffer, base: number, baseName: string, out: Map<string, SignatureHit>): void {
    const counts = new Map<string, number>();
    // Patterns per needle that apply to this file (hint-only ones need a matching file name), worked out on the
    // first hit: most chunks have none.
    let applicable: Map<string, Array<{ signature: VersionSignature; pattern: SignaturePattern }>> | undefined;
    this.needles.scan(data, (index, needle) => {
      applicable ??= this.applicable(baseName);
      const patterns = applicable.get(needle)!;
      if (patterns.length === 0) return;
      const seen = (counts.get(needle) ?? 0) + 1;
      counts.set(needle, seen);
      if (seen > MAX_HITS_PER_NEEDLE) return;
      const start = Math.max(0, index - WINDOW_BEFORE);
      const window = data.toString('latin1', start, Math.min(data.length, index + needle.length + WINDOW_AFTER));
      const at = index - start;
      for (const { signature, pattern } of patterns) {
        const hit = matchAround(pattern.regex, window, at, needle.length, pattern.presence === true);
        if (!hit) continue;
        const coded = pattern.fromCode?.(data, index, base);
        if (coded) {
          hit.version = coded.version;
          hit.text = `${hit.text} (${coded.detail})`;
        }
        const version = hit.version === undefined ? undefined : signature.normalize ? signature.normalize(hit.version) : hit.version;
        if (version !== undefined && !VERSION_SHAPE.test(version)) continue;
        const key = `${signature.id}@${version ?? ''}`;
        if (!out.has(key)) {
          out.set(key, { signature, version, match: clean(hit.text), offset: base + start + hit.index, confidence: coded ? (coded.confidence ?? 0.9) : (pattern.confidence ?? 0.9) });
        }
      }
    });
  }

  /** As scanChunk, for a chunk already decoded as latin1 text. */
  scanText(text: string, base: number, baseName: string, out: Map<string, SignatureHit>): void {
    this.scanChunk(Buffer.from(text, 'latin1'), base, baseName, out);
  }

  private applicable(baseName: string): Map<string, Array<{ signature: VersionSignature; pattern: SignaturePattern }>> {
    const applicable = new Map<string, Array<{ signature: VersionSignature; pattern: SignaturePattern }>>();
    for (const [needle, list] of this.byNeedle) applicable.set(needle, list.filter(({ signature, pattern }) => !pattern.hintOnly || this.hinted(signature, baseName)));
    return applicable;
  }
}

/** The first regex match in `window` that overlaps the needle at `at`, with its version group. */
function matchAround(regex: RegExp, window: string, at: number, length: number, presence: boolean): { version?: string; text: string; index: number } | undefined {
  const re = new RegExp(regex.source, regex.flags.includes('g') ? regex.flags : regex.flags + 'g');
  for (let m = re.exec(window); m; m = re.exec(window)) {
    if (m.index <= at + length && m.index + m[0].length >= at) {
      if (presence) return { text: presenceContext(window, at, length), index: m.index };
      const version = m.slice(1).find((g) => g !== undefined);
      if (version) return { version, text: m[0], index: m.index };
    }
    re.lastIndex = m.index + 1;
  }
  return undefined;
}

/** For presence-only hits the evidence is the printable string around the needle. */
function presenceContext(window: string, at: number, length: number): string {
  let start = at;
  let end = at + length;
  while (start > 0 && at - start < 48 && /[\x20-\x7e]/.test(window[start - 1])) start--;
  while (end < window.length && end - at < 96 && /[\x20-\x7e]/.test(window[end])) end++;
  return window.slice(start, end);
}

/** Evidence text: NUL runs become ' \0 ' separators, control characters dropped, length capped. */
export function clean(text: string): string {
  // UTF-16LE strings (UEFI, Windows resources) read as latin1 alternate characters and NULs.
  if (/^(?:[\x20-\x7e]\0){4,}/.test(text)) text = text.replace(/([\x20-\x7e])\0/g, '$1');
  return text
    .replace(/\0+/g, ' \\0 ')
    .replace(/[\x01-\x08\x0b-\x1f\x7f-\xff]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
}

/** NUL-delimited printable strings of a chunk that fully match `version` (for standalone patterns). */
export function standaloneStrings(text: string, base: number, version: RegExp, out: Map<string, number>, limit = 64): void {
  const re = new RegExp(`\\0(${version.source.replace(/^\^|\$$/g, '')})(?=\\0)`, 'g');
  for (let m = re.exec(text); m && out.size < limit; m = re.exec(text)) {
    if (!out.has(m[1])) out.set(m[1], base + m.index + 1);
    re.lastIndex = m.index + 1;
  }
}
