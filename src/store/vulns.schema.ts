// Tables of the local vulnerability database (NVD, CVE 5, OSV, KEV, EPSS). The service's `Database` interface
// extends VulnTables; migration 0100-vulnerabilities creates them. Portable types only (text, integer, real),
// so SQLite and PostgreSQL share one schema; structured fields are JSON text.

/** One imported vulnerability record per (id, source); `data` is the VulnerabilityRecord JSON without kev/epss. */
export interface VulnRecordsTable {
  id: string;
  /** Feed the record came from: 'nvd' | 'cve5' | 'osv'. */
  source: string;
  /** The record's own last-modified time (ISO 8601); a newer one replaces an older one, an older one is ignored. */
  modified: string | null;
  published: string | null;
  data: string;
  /** When this row was last written (ISO 8601). */
  imported_at: string;
}

/** Lookup index: the CPE (vendor, product) pairs a record's criteria name. */
export interface VulnProductsTable {
  vendor: string;
  product: string;
  vuln_id: string;
  source: string;
}

/** Lookup index: the OSV (ecosystem, package name) pairs a record affects. */
export interface VulnPackagesTable {
  ecosystem: string;
  name: string;
  vuln_id: string;
  source: string;
}

/** Every id a record is known by (its own id and aliases), for CVE ↔ GHSA/OSV merging. */
export interface VulnAliasesTable {
  alias: string;
  vuln_id: string;
  source: string;
}

/** CISA Known Exploited Vulnerabilities catalog entries. */
export interface VulnKevTable {
  cve_id: string;
  date_added: string;
  due_date: string | null;
  known_ransomware_campaign_use: string | null;
  required_action: string | null;
}

/** FIRST EPSS scores (latest per CVE). */
export interface VulnEpssTable {
  cve_id: string;
  probability: number;
  percentile: number;
  score_date: string | null;
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
  vuln_products: VulnProductsTable;
  vuln_packages: VulnPackagesTable;
  vuln_aliases: VulnAliasesTable;
  vuln_kev: VulnKevTable;
  vuln_epss: VulnEpssTable;
  vuln_feeds: VulnFeedsTable;
}
