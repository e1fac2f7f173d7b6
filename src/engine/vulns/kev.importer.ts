// CISA Known Exploited Vulnerabilities catalog (known_exploited_vulnerabilities.json): one entry per CVE, each
// stamped with the date of the catalog it came from, so that an entry from an older catalog (a sample or an old
// download imported later) never replaces the one from a newer catalog.
import { FormatError } from '../format-error.js';
import { CVE_ID, obj, optStr, str, type Obj } from './feed-values.js';

export interface KevEntry {
  cveId: string;
  dateAdded: string;
  dueDate?: string;
  knownRansomwareCampaignUse?: string;
  requiredAction?: string;
  /** The date of the catalog the entry came from (ISO 8601, UTC), when the catalog states it before its entries. */
  catalogDate?: string;
}

export function isKevCatalog(header: Obj): boolean {
  return typeof header.catalogVersion === 'string' || /known exploited/i.test(String(header.title ?? ''));
}

/** The catalog's own date: dateReleased, else catalogVersion. */
export function kevCatalogDate(header: Obj): string | undefined {
  return optStr(header.dateReleased) ?? optStr(header.catalogVersion);
}

/**
 * The catalog's date as a comparable ISO 8601 UTC time, for ordering its entries against another catalog's:
 * dateReleased ('2025-08-25T17:04:19.9796Z'), else catalogVersion ('2025.08.25', taken as midnight UTC).
 */
export function kevEntryDate(header: Obj): string | undefined {
  const released = optStr(header.dateReleased);
  const time = released === undefined ? NaN : Date.parse(released);
  if (!Number.isNaN(time)) return new Date(time).toISOString();
  const version = /^(\d{4})[.-](\d\d)[.-](\d\d)$/.exec(optStr(header.catalogVersion) ?? '');
  return version ? `${version[1]}-${version[2]}-${version[3]}T00:00:00.000Z` : undefined;
}

/**
 * Whether an entry from a catalog dated `incoming` may replace the stored one from a catalog dated `stored`: an
 * older catalog never replaces a newer one; equal or newer replaces; when either date is unknown, the later import wins.
 */
export function kevReplaces(incoming: string | null | undefined, stored: string | null | undefined): boolean {
  return !incoming || !stored || incoming >= stored;
}

/** One catalog entry; `catalogDate` is the date of its catalog (kevEntryDate), when known. */
export function kevEntry(input: unknown, catalogDate?: string): KevEntry {
  const v = obj(input, 'KEV entry');
  const cveId = str(v.cveID, 'cveID').trim();
  if (!CVE_ID.test(cveId)) throw new FormatError(`cveID '${cveId}' is not a CVE id`);
  const dateAdded = str(v.dateAdded, 'dateAdded');
  if (!/^\d{4}-\d\d-\d\d/.test(dateAdded)) throw new FormatError(`dateAdded '${dateAdded}' is not a date`);
  const entry: KevEntry = { cveId, dateAdded };
  const due = optStr(v.dueDate);
  const ransomware = optStr(v.knownRansomwareCampaignUse);
  const action = optStr(v.requiredAction);
  if (due) entry.dueDate = due;
  if (ransomware) entry.knownRansomwareCampaignUse = ransomware;
  if (action) entry.requiredAction = action;
  if (catalogDate) entry.catalogDate = catalogDate;
  return entry;
}
