// Version comparison, one comparator per version scheme (grype's rule). The `generic` scheme is the one NVD
// ranges need for firmware: upstream versions such as 1.0.2k, 2019.78, 0.9.8g, 1.1.1t, 2.6.31, r13499,
// 4.8-1521-gdeadbee, 5.16-rc1, 2.4.2b3, 0.15-20200726 and 7.4p1. Distribution schemes (dpkg, rpm) live in their
// own files. For two plain dotted numeric versions it must agree with version-key.ts (see there).

export interface VersionScheme {
  id: string;
  /** Negative, zero or positive like Array.sort; undefined when either side is not a version of this scheme. */
  compare(a: string, b: string): number | undefined;
}

type Token = { num: bigint } | { word: string };

/** Words that mark a version BEFORE the release they are attached to (5.16-rc1 < 5.16). */
const PRE_RELEASE: Record<string, number> = { dev: 1, snapshot: 1, alpha: 2, beta: 3, pre: 4, preview: 4, rc: 5 };

function isPre(t: Token | undefined): boolean {
  return t !== undefined && 'word' in t && t.word in PRE_RELEASE;
}

const tokenCache = new Map<string, Token[] | undefined>();

/** Splits into numbers and words (cached: the matcher compares the same few versions very often). */
export function tokenize(version: string): Token[] | undefined {
  if (tokenCache.has(version)) return tokenCache.get(version);
  if (tokenCache.size > 100_000) tokenCache.clear();
  const tokens = tokenizeUncached(version);
  tokenCache.set(version, tokens);
  return tokens;
}

/** Short pre-release letters, when digits follow them right after a number: 2.4.2b3 is a beta of 2.4.2. */
const SHORT_PRE_RELEASE: Record<string, string> = { a: 'alpha', b: 'beta' };

/**
 * Separators (. - _ + ~) only delimit. A git-describe hash suffix is dropped. An a or b followed by digits after
 * a number (2.4.2b3, 2.4.2-a1) is alpha or beta; a lone letter (1.0.2k, 1.0.2b) stays a patch letter (newer).
 */
function tokenizeUncached(version: string): Token[] | undefined {
  let v = version.trim().toLowerCase();
  // git describe: 4.8-1521-g1a2b3c4 → 4.8-1521 (the count orders it; the hash does not)
  v = v.replace(/-g[0-9a-f]{6,40}$/, '');
  // a leading 'v' ('v1.2') is decoration, but 'r13499' is an SVN revision and keeps its 'r'
  v = v.replace(/^v(?=\d)/, '');
  if (!/\d/.test(v)) return undefined;
  const tokens: Token[] = [];
  for (const m of v.matchAll(/(\d+)|([a-z]+)/g)) {
    if (m[1] !== undefined) {
      tokens.push({ num: BigInt(m[1]) });
      continue;
    }
    const word = m[2]!;
    const afterNumber = tokens.length > 0 && 'num' in tokens[tokens.length - 1]!;
    const beforeDigit = /\d/.test(v[m.index! + word.length] ?? '');
    tokens.push({ word: afterNumber && beforeDigit ? SHORT_PRE_RELEASE[word] ?? word : word });
  }
  return tokens;
}

function compareTokens(a: Token, b: Token): number {
  if ('num' in a && 'num' in b) return a.num < b.num ? -1 : a.num > b.num ? 1 : 0;
  if ('word' in a && 'word' in b) {
    const pa = PRE_RELEASE[a.word];
    const pb = PRE_RELEASE[b.word];
    if (pa !== undefined && pb !== undefined) return pa - pb;
    if (pa !== undefined) return -1;
    if (pb !== undefined) return 1;
    return a.word < b.word ? -1 : a.word > b.word ? 1 : 0;
  }
  // number against word: a pre-release word is older, any other word (a patch letter) is older than a number
  return 'num' in a ? 1 : -1;
}

/** What the longer version's extra tokens mean: pre-release (older), zeros (same), anything else (newer). */
function tail(rest: Token[]): number {
  if (rest.length === 0) return 0;
  if (isPre(rest[0])) return -1;
  if (rest.every((t) => 'num' in t && t.num === 0n)) return 0;
  return 1;
}

/** A trailing -YYYYMMDD release date tag, as json-c tags its releases (0.15-20200726). */
const DATE_TAG = /-(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])$/;

export const genericScheme: VersionScheme = {
  id: 'generic',
  compare(a, b) {
    // A date tag on one side only names the same release as the version without it (NVD writes json-c's fix of
    // CVE-2020-12762 as 0.15-20200726; the library says 0.15): it is left out. Two tags compare as dates.
    const taggedA = DATE_TAG.test(a);
    if (taggedA !== DATE_TAG.test(b)) {
      if (taggedA) a = a.replace(DATE_TAG, '');
      else b = b.replace(DATE_TAG, '');
    }
    const ta = tokenize(a);
    const tb = tokenize(b);
    if (!ta || !tb) return undefined;
    // a version that starts with a word (r13499, an SVN revision) is no point of a dotted-version range
    if (('num' in ta[0]!) !== ('num' in tb[0]!)) return undefined;
    const n = Math.min(ta.length, tb.length);
    for (let i = 0; i < n; i++) {
      const c = compareTokens(ta[i]!, tb[i]!);
      if (c !== 0) return c;
    }
    if (ta.length > n) return tail(ta.slice(n));
    if (tb.length > n) return 0 - tail(tb.slice(n)) || 0;
    return 0;
  },
};

/** A bound of a range; both ends optional, as in NVD cpeMatch and OSV events. */
export interface VersionRange {
  startIncluding?: string;
  startExcluding?: string;
  endIncluding?: string;
  endExcluding?: string;
}

/**
 * Whether `version` lies in `range`. Undefined when a bound cannot be compared (a version that is not a version of
 * the scheme): the caller must not report a match it cannot justify.
 */
export function inRange(scheme: VersionScheme, version: string, range: VersionRange): boolean | undefined {
  // written without allocations: the matcher calls this for every candidate criterion
  const { startIncluding: si, startExcluding: se, endIncluding: ei, endExcluding: ee } = range;
  let c: number | undefined;
  if (si && si !== '*') {
    if ((c = scheme.compare(version, si)) === undefined) return undefined;
    if (c < 0) return false;
  }
  if (se && se !== '*') {
    if ((c = scheme.compare(version, se)) === undefined) return undefined;
    if (c <= 0) return false;
  }
  if (ei && ei !== '*') {
    if ((c = scheme.compare(version, ei)) === undefined) return undefined;
    if (c > 0) return false;
  }
  if (ee && ee !== '*') {
    if ((c = scheme.compare(version, ee)) === undefined) return undefined;
    if (c >= 0) return false;
  }
  return true;
}
