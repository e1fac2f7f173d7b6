// EDK II release markers: string literals that first appear in the edk2 source at one stable release, or leave it
// after one (tables/edk2-release-markers.json.gz, generated from tianocore/edk2's tags by
// scripts/edk2-release-markers.ts). A release build can keep no release string and no build paths (Debian's OVMF
// names only "EDK II"); the markers its modules hold bracket the release it was built from. Each module's markers
// are evidence on the edk2 component (edk2-markers.identifier.ts); the image's release is inferred from all of
// them together (inferEdk2Release).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

export interface Edk2Marker {
  /** The literal as its bytes are in a module (ASCII; UTF-16LE when `utf16`). */
  text: string;
  /** The first and the last stable release (YYYYMM) whose source holds it, a contiguous run. */
  since: string;
  until: string;
  utf16: boolean;
  /** One source file that holds it at `since`, for people. */
  file?: string;
}

export interface Edk2MarkerTable {
  /** The stable releases the table was made from, oldest first. */
  releases: string[];
  markers: Edk2Marker[];
}

const TABLE_FILE = fileURLToPath(new URL('../../../tables/edk2-release-markers.json.gz', import.meta.url));
let table: Edk2MarkerTable | undefined;

/** The shipped table, read once on first use. */
export function edk2MarkerTable(): Edk2MarkerTable {
  table ??= JSON.parse(gunzipSync(readFileSync(TABLE_FILE)).toString('utf8')) as Edk2MarkerTable;
  return table;
}

/** Markers listed per module, of each kind: enough for the inference and to show what decided, short enough to read. */
const LOWS_LISTED = 16;
const HIGHS_LISTED = 8;

const printable = (b: number) => (b >= 0x20 && b <= 0x7e) || b === 0x09 || b === 0x0a || b === 0x0d;

/**
 * The UTF-16LE text of a buffer as latin1 bytes: every run of at least four printable ASCII characters stored
 * as UTF-16LE (at either byte alignment), each followed by a NUL. HII string packages and L"" literals are
 * UTF-16; searching their compacted text lets one needle table serve both encodings.
 */
export function utf16Text(data: Buffer): Buffer {
  // a run of k ≥ 4 characters takes 2k bytes and gives k + 1: the output is at most 5/8 of the input
  const out = Buffer.allocUnsafe(Math.ceil((data.length * 5) / 8) + 1);
  let o = 0;
  for (let i = 0; i + 1 < data.length; ) {
    if (data[i + 1] !== 0 || !printable(data[i]!)) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < data.length && data[j + 1] === 0 && printable(data[j]!)) j += 2;
    if (j - i < 8) {
      i++;
      continue;
    }
    for (let k = i; k < j; k += 2) out[o++] = data[k]!;
    out[o++] = 0;
    i = j;
  }
  return out.subarray(0, o);
}

/** The four bytes at `i` as one number (little-endian), the key markers are indexed by. */
const word = (data: Buffer, i: number) => (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24)) >>> 0;
/** A 16-bit hash of a four-byte key, for the filter that lets most positions cost one probe. */
const hash16 = (key: number) => Math.imul(key, 0x9e3779b1) >>> 16;

/**
 * Finds a table's markers in module bytes, as ASCII or as UTF-16LE text. Thousands of markers share their first
 * two bytes (two spaces, "%a"), which makes a table keyed by byte pairs (signature.ts NeedleSearch) compare dozens
 * at many positions: markers are keyed by their first four bytes instead, behind a 64 Ki filter of their hashes.
 */
export class Edk2MarkerSearch {
  private readonly filter = new Uint8Array(1 << 16);
  private readonly byKey = new Map<number, Array<{ marker: Edk2Marker; bytes: Buffer }>>();

  constructor(readonly table: Edk2MarkerTable) {
    for (const marker of table.markers) {
      const bytes = Buffer.from(marker.text, 'latin1');
      if (bytes.length < 4) continue; // the table's markers are at least 14 bytes
      const key = word(bytes, 0);
      this.filter[hash16(key)] = 1;
      const list = this.byKey.get(key);
      if (list) list.push({ marker, bytes });
      else this.byKey.set(key, [{ marker, bytes }]);
    }
  }

  /** Adds the markers found in `data` (one chunk of a module) to `found`. */
  find(data: Buffer, found: Set<Edk2Marker>): void {
    this.scan(data, found);
    this.scan(utf16Text(data), found);
  }

  private scan(data: Buffer, found: Set<Edk2Marker>): void {
    const filter = this.filter;
    for (let i = 0; i + 4 <= data.length; i++) {
      const key = word(data, i);
      if (filter[hash16(key)] === 0) continue;
      for (const { marker, bytes } of this.byKey.get(key) ?? []) {
        if (i + bytes.length > data.length) continue;
        let k = 4;
        while (k < bytes.length && data[i + k] === bytes[k]) k++;
        if (k === bytes.length) found.add(marker);
      }
    }
  }

  /**
   * A module's markers as evidence, joined by '; ': what the image's inference needs of it (inferEdk2Release), its
   * newest lower bounds and its oldest upper bounds, each as its run of releases ('202211..' from 202211 on,
   * '..202208' up to 202208; a bound where the table ends is open) and its text.
   */
  evidence(found: Iterable<Edk2Marker>): string {
    const { releases } = this.table;
    const first = releases[0];
    const last = releases[releases.length - 1];
    const lows = [...found].filter((m) => m.since !== first).sort((a, b) => b.since.localeCompare(a.since) || a.text.localeCompare(b.text));
    const highs = [...found].filter((m) => m.until !== last).sort((a, b) => a.until.localeCompare(b.until) || a.text.localeCompare(b.text));
    const listed = new Set([...lows.slice(0, LOWS_LISTED), ...highs.slice(0, HIGHS_LISTED)]);
    return [...listed].map((m) => `${m.since === first ? '' : m.since}..${m.until === last ? '' : m.until} ${JSON.stringify(m.text)}`).join('; ');
  }
}

/** A marker read back from its evidence (Edk2MarkerSearch.evidence): the bounds it sets, and its text. */
export interface MarkerBounds {
  since?: string;
  until?: string;
  text: string;
}

const DESCRIBED = /(\d{6})?\.\.(\d{6})? ("(?:[^"\\]|\\.)*")/g;

/** The markers an evidence match lists (Edk2MarkerSearch.evidence). */
export function parseMarkers(match: string): MarkerBounds[] {
  const out: MarkerBounds[] = [];
  for (const m of match.matchAll(DESCRIBED)) {
    const bound: MarkerBounds = { text: JSON.parse(m[3]!) as string };
    if (m[1]) bound.since = m[1];
    if (m[2]) bound.until = m[2];
    out.push(bound);
  }
  return out;
}

export interface InferredRelease {
  release: string;
  /** What decided it: the markers at or after the release, and the upper bound two markers set. */
  reason: string;
}

/**
 * The release an image's markers bracket: at least the newest release that two distinct markers reach, and no
 * later than the oldest release that two distinct found markers were last in (one marker alone may be a vendor's
 * backport, or a string a vendor kept). Undefined when fewer than two markers set a lower bound, or the bounds
 * contradict each other.
 */
export function inferEdk2Release(markers: MarkerBounds[]): InferredRelease | undefined {
  const distinct = [...new Map(markers.map((m) => [m.text, m])).values()];
  const lows = distinct.filter((m) => m.since !== undefined).sort((a, b) => b.since!.localeCompare(a.since!) || a.text.localeCompare(b.text));
  if (lows.length < 2) return undefined;
  const release = lows[1]!.since!;
  const highs = distinct.filter((m) => m.until !== undefined).sort((a, b) => a.until!.localeCompare(b.until!) || a.text.localeCompare(b.text));
  const upper = highs[1];
  if (upper && upper.until! < release) return undefined;
  const reaching = lows.filter((m) => m.since! >= release);
  const examples = reaching.slice(0, 3).map((m) => JSON.stringify(m.text)).join(', ');
  const ceiling = upper
    ? `no later than edk2-stable${upper.until} (${JSON.stringify(upper.text)} was last in it)`
    : 'no marker of a later release found';
  return { release, reason: `edk2-stable${release} or later: ${reaching.length} strings first released in edk2-stable${release} or later (${examples}); ${ceiling}` };
}
