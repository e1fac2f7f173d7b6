// Tables of the local vulnerability database (NVD, CVE 5, OSV, KEV, EPSS). The service's `Database` interface
// extends VulnTables; migration 0100-vulnerabilities creates them, 0101-vulnerability-criteria adds vuln_criteria. Portable types only (text, integer, real),
// so SQLite and PostgreSQL share one schema; structured fields are JSON text.

/** One imported record per (source, record_id); `data` is the VulnerabilityRecord JSON without kev/epss. */
export interface VulnRecordsTable {
  /** Feed the record came from: 'nvd' | 'cve5' | 'osv'. */
  source: string;
  /** The record's id in its feed ('CVE-2021-42386', 'UBUNTU-CVE-2021-3782', 'RLSA-2021:3891'). */
  record_id: string;
  /** The vulnerability it is filed under: its CVE id when it has one, else record_id. */
  vuln_id: string;
  /** The record's own last-modified time (ISO 8601); a newer one replaces an older one, an older one is ignored. */
  modified: string | null;
  published: string | null;
  data: string;
  /** When this row was last written (ISO 8601). */
  imported_at: string;
}

/**
 * The CPE criteria of each record, one row each (criteria-index.ts IndexedCriterion), indexed by (vendor, product):
 * the matcher tests these rows and loads only the records with a matching criterion. low_key and high_key are
 * sortable version keys (version-key.ts, criteria-index.ts) that let a query drop the criteria whose range cannot
 * hold a component's plain numeric version; rows with keyed = 0 are never dropped by them.
 */
export interface VulnCriteriaTable {
  vendor: string;
  product: string;
  source: string;
  record_id: string;
  /** The criterion's place in the record (configuration, then position): its id within the record. */
  config_index: number;
  criterion_index: number;
  /** The record's imported_at when the row was written (rows are rewritten with their record): a parsed copy of that version can be reused. */
  imported_at: string;
  /** 1: names the affected software; 0: a platform criterion ("running on/with"). */
  vulnerable: number;
  /** CPE attributes as written (lower-case): part, version, update; the six others as a JSON array, or null when all are ANY. */
  part: string;
  version: string;
  cpe_update: string;
  others: string | null;
  start_including: string | null;
  start_excluding: string | null;
  end_including: string | null;
  end_excluding: string | null;
  /** 1 when low_key and high_key apply: the criterion can hold a plain version of key k only if low_key <= k < high_key. */
  keyed: number;
  low_key: string;
  high_key: string;
}

/** Lookup index: the OSV (ecosystem, package name) pairs a record affects. */
export interface VulnPackagesTable {
  ecosystem: string;
  name: string;
  source: string;
  record_id: string;
}

/** Every id a record is known by (its own id and aliases), for CVE ↔ GHSA/OSV merging. */
export interface VulnAliasesTable {
  alias: string;
  source: string;
  record_id: string;
}

/** CISA Known Exploited Vulnerabilities catalog entries. */
export interface VulnKevTable {
  cve_id: string;
  date_added: string;
  due_date: string | null;
  known_ransomware_campaign_use: string | null;
  required_action: string | null;
  /**
   * The date of the catalog the row came from (ISO 8601 UTC, kev.importer.ts kevEntryDate), added by migration
   * 0102-kev-catalog-date; null when unknown. An entry from an older catalog never replaces the row.
   */
  catalog_date: string | null;
}

/** FIRST EPSS scores (latest per CVE). */
export interface VulnEpssTable {
  cve_id: string;
  probability: number;
  percentile: number;
  score_date: string | null;
}

/** A pending request to re-match the latest images (vuln-rematch-request.ts): one row at most. */
export interface VulnRematchTable {
  id: string;
  /** When the vulnerability data last changed without a re-match since (ISO 8601). */
  requested_at: string;
}

/** Per-feed bookkeeping for `vulndb status` and resumable `vulndb sync`. */
export interface VulnFeedsTable {
  /** 'nvd' | 'cve5' | 'osv' | 'kev' | 'epss' */
  feed: string;
  /** Date the feed itself states (KEV catalogVersion/dateReleased, EPSS score_date, newest NVD lastModified). */
  feed_date: string | null;
  /** NVD sync cursor: the lastModStartDate to resume from. */
  cursor: string | null;
  /** When the last import or sync of this feed finished (ISO 8601). */
  updated_at: string;
}

export interface VulnTables {
  vuln_records: VulnRecordsTable;
  vuln_criteria: VulnCriteriaTable;
  vuln_packages: VulnPackagesTable;
  vuln_aliases: VulnAliasesTable;
  vuln_kev: VulnKevTable;
  vuln_epss: VulnEpssTable;
  vuln_feeds: VulnFeedsTable;
  vuln_rematch: VulnRematchTable;
}
