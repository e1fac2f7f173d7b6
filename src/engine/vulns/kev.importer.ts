// CISA Known Exploited Vulnerabilities catalog (known_exploited_vulnerabilities.json): one entry per CVE.
import { FormatError } from '../unpack/handler.js';
import { CVE_ID, obj, optStr, str, type Obj } from './feed-values.js';

export interface KevEntry {
  cveId: string;
  dateAdded: string;
  dueDate?: string;
  knownRansomwareCampaignUse?: string;
  requiredAction?: string;
}

export function isKevCatalog(header: Obj): boolean {
  return typeof header.catalogVersion === 'string' || /known exploited/i.test(String(header.title ?? ''));
}

/** The catalog's own date: dateReleased, else catalogVersion. */
export function kevCatalogDate(header: Obj): string | undefined {
  return optStr(header.dateReleased) ?? optStr(header.catalogVersion);
}

export function kevEntry(input: unknown): KevEntry {
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
  return entry;
}
