// CVE JSON 5 `affected` entries → CPE criteria. An entry names its software by CPEs (`cpes`, often added by an
// ADP) or only by `vendor` and `product`; its `versions` list affected and unaffected versions and ranges
// (`version` up to `lessThan` / `lessThanOrEqual`), and `defaultStatus` says what the versions not listed are.
// With defaultStatus 'affected' (the Linux kernel CNA's form: everything is affected except the listed fixed
// ranges), the affected ranges are the gaps between the unaffected ones.
import { cpeValue } from '../cpe.js';
import type { CpeCriterion } from './source.js';
import { genericScheme } from './version.js';

type Obj = Record<string, unknown>;

/** Values that stand for "no version": the range starts at the beginning, or an exact entry names nothing. */
const UNBOUNDED = new Set(['', '0', '*', 'unspecified', 'n/a', 'unknown', '-']);
/** Version types whose values are not versions (commit ids): their entries cannot be compared. ('original_commit_for_fix', the
 * kernel CNA's type for "fixed from this release on", holds a release number and stays.) */
const UNCOMPARABLE_TYPES = new Set(['git']);

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** The CPE an entry without `cpes` stands for, from its vendor and product; undefined when either is missing or 'n/a'. */
export function vendorProductCpe(affected: Obj): string | undefined {
  const vendor = text(affected.vendor);
  const product = text(affected.product);
  if (!vendor || !product || UNBOUNDED.has(vendor.toLowerCase()) || UNBOUNDED.has(product.toLowerCase())) return undefined;
  return `cpe:2.3:a:${cpeValue(vendor)}:${cpeValue(product)}:*:*:*:*:*:*:*:*`;
}

/**
 * CNA vendor and product names (lower-case) that differ from the CPE names NVD's dictionary gives the same
 * software, which is what identified components carry. The kernel CNA writes Linux/Linux for linux:linux_kernel.
 */
const CNA_ALIASES: Record<string, { part: string; vendor: string; product: string }> = {
  'linux\0linux': { part: 'o', vendor: 'linux', product: 'linux_kernel' },
  'linux\0linux kernel': { part: 'o', vendor: 'linux', product: 'linux_kernel' },
};

/** The CPE an entry without `cpes` stands for: a known alias of its CNA names, or the names normalised. */
export function cnaProductCpe(affected: Obj): { cpe: string; origin: 'alias' | 'name' } | undefined {
  const vendor = text(affected.vendor)?.toLowerCase();
  const product = text(affected.product)?.toLowerCase();
  const alias = vendor && product ? CNA_ALIASES[`${vendor}\0${product}`] : undefined;
  if (alias) return { cpe: `cpe:2.3:${alias.part}:${alias.vendor}:${alias.product}:*:*:*:*:*:*:*:*`, origin: 'alias' };
  const cpe = vendorProductCpe(affected);
  return cpe ? { cpe, origin: 'name' } : undefined;
}

function withVersion(cpe: string, version: string): string | undefined {
  const parts = cpe.split(':');
  if (parts.length !== 13) return undefined;
  parts[5] = version.replace(/([:\\*?])/g, '\\$1');
  return parts.join(':');
}

/** An 'affected' entry as a criterion for the CPE; undefined when it names no comparable version. */
function affectedCriterion(cpe: string, v: Obj): CpeCriterion | undefined {
  const version = text(v.version) ?? '';
  const lessThan = text(v.lessThan);
  const lessThanOrEqual = text(v.lessThanOrEqual);
  if (lessThan === undefined && lessThanOrEqual === undefined) {
    if (UNBOUNDED.has(version)) return undefined;
    const criteria = withVersion(cpe, version);
    return criteria ? { criteria, vulnerable: true } : undefined;
  }
  const c: CpeCriterion = { criteria: cpe, vulnerable: true };
  if (!UNBOUNDED.has(version)) c.versionStartIncluding = version;
  if (lessThan !== undefined && lessThan !== '*') c.versionEndExcluding = lessThan;
  if (lessThanOrEqual !== undefined && lessThanOrEqual !== '*') c.versionEndIncluding = lessThanOrEqual;
  return c;
}

/** A version interval; undefined ends are unbounded. */
interface Interval {
  lo?: string;
  loIncl: boolean;
  hi?: string;
  hiIncl: boolean;
}

/** '5.10.*' as an upper bound: everything below 5.11 (undefined when the part before '*' is not a number). */
function wildcardEnd(value: string): string | undefined {
  const m = /^(.*?)(\d+)\.\*$/.exec(value);
  return m ? `${m[1]}${BigInt(m[2]!) + 1n}` : undefined;
}

/** An 'unaffected' entry as an interval; null when it cannot be read as one. */
function unaffectedInterval(v: Obj): Interval | null {
  const version = text(v.version) ?? '';
  const lessThan = text(v.lessThan);
  const lessThanOrEqual = text(v.lessThanOrEqual);
  const lo = UNBOUNDED.has(version) ? undefined : version;
  if (lessThan === undefined && lessThanOrEqual === undefined) return lo === undefined ? null : { lo, loIncl: true, hi: lo, hiIncl: true };
  const end = lessThan ?? lessThanOrEqual!;
  if (end === '*') return { lo, loIncl: true, hiIncl: false };
  if (end.endsWith('*')) {
    const hi = wildcardEnd(end);
    return hi === undefined ? null : { lo, loIncl: true, hi, hiIncl: false };
  }
  return { lo, loIncl: true, hi: end, hiIncl: lessThan === undefined };
}

/**
 * The gaps between unaffected intervals: the affected ranges when every version not listed is affected. Undefined
 * when two bounds cannot be compared (then nothing is claimed).
 */
function gaps(unaffected: Interval[]): Interval[] | undefined {
  const cmp = (a: string, b: string) => genericScheme.compare(a, b);
  let failed = false;
  const compareLo = (a: Interval, b: Interval) => {
    if (a.lo === undefined || b.lo === undefined) return a.lo === b.lo ? 0 : a.lo === undefined ? -1 : 1;
    const c = cmp(a.lo, b.lo);
    if (c === undefined) failed = true;
    return c ?? 0;
  };
  const sorted = [...unaffected].sort(compareLo);
  if (failed) return undefined;
  const out: Interval[] = [];
  // the end of what is covered so far: undefined with started=false is minus infinity
  let cover: { at?: string; incl: boolean } | undefined;
  for (const u of sorted) {
    // is there room between the cover and u's start?
    if (u.lo !== undefined) {
      const c = cover === undefined ? -1 : cover.at === undefined ? 1 : cmp(cover.at, u.lo);
      if (c === undefined) return undefined;
      if (c < 0 || (c === 0 && !cover!.incl && !u.loIncl)) out.push({ ...(cover ? { lo: cover.at } : {}), loIncl: cover ? !cover.incl : false, hi: u.lo, hiIncl: !u.loIncl });
    }
    if (cover === undefined) cover = { at: u.hi, incl: u.hiIncl };
    else if (cover.at !== undefined) {
      if (u.hi === undefined) cover = { incl: false };
      else {
        const c = cmp(u.hi, cover.at);
        if (c === undefined) return undefined;
        if (c > 0 || (c === 0 && u.hiIncl)) cover = { at: u.hi, incl: u.hiIncl };
      }
    }
    if (cover.at === undefined) return out;
  }
  out.push(cover === undefined ? { loIncl: false, hiIncl: false } : { lo: cover.at, loIncl: !cover.incl, hiIncl: false });
  return out;
}

function intervalCriterion(cpe: string, g: Interval): CpeCriterion {
  const c: CpeCriterion = { criteria: cpe, vulnerable: true };
  if (g.lo !== undefined) c[g.loIncl ? 'versionStartIncluding' : 'versionStartExcluding'] = g.lo;
  if (g.hi !== undefined) c[g.hiIncl ? 'versionEndIncluding' : 'versionEndExcluding'] = g.hi;
  return c;
}

/** The criteria of one `affected` entry for one CPE (one configuration group; empty when it claims nothing). */
export function affectedCriteria(cpe: string, affected: Obj): CpeCriterion[] {
  const listed = (Array.isArray(affected.versions) ? affected.versions : []).filter((v): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v));
  const versions = listed.filter((v) => !UNCOMPARABLE_TYPES.has(String(v.versionType ?? '')));
  const group = versions.filter((v) => v.status === 'affected').map((v) => affectedCriterion(cpe, v)).filter((c): c is CpeCriterion => c !== undefined);
  if (affected.defaultStatus === 'affected') {
    const unaffected = versions.filter((v) => v.status === 'unaffected').map(unaffectedInterval);
    const affectedRanges = unaffected.includes(null) ? undefined : gaps(unaffected as Interval[]);
    if (affectedRanges) group.push(...affectedRanges.map((g) => intervalCriterion(cpe, g)));
  }
  // a CPE with its own version and no version list names exactly that version
  if (listed.length === 0 && affected.defaultStatus !== 'affected' && cpe.split(':')[5] !== '*') group.push({ criteria: cpe, vulnerable: true });
  return group;
}
