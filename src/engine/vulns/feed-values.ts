// Small checked accessors shared by the feed importers: a malformed record becomes a FormatError naming the field.
import { FormatError } from '../format-error.js';

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function obj(v: unknown, what: string): Obj {
  if (!isObj(v)) throw new FormatError(`${what} is not an object`);
  return v;
}

export function str(v: unknown, what: string): string {
  if (typeof v !== 'string' || v === '') throw new FormatError(`${what} is missing or not a string`);
  return v;
}

export function optStr(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function num(v: unknown): number | undefined {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

/** Normalises a feed timestamp to ISO 8601 UTC with 'Z' (NVD omits the zone; it means UTC). */
export function isoTime(v: unknown): string | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  const withZone = /([zZ]|[+-]\d\d:?\d\d)$/.test(v) || /^\d{4}-\d\d-\d\d$/.test(v) ? v : `${v}Z`;
  const t = Date.parse(withZone);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

export const CVE_ID = /^CVE-\d{4}-\d{4,}$/;

export function uniqueBy<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((t) => {
    const k = key(t);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
