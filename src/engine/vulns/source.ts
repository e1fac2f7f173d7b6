// The one query the matcher needs from a vulnerability database, so the engine stays free of any database:
// the service passes a store-backed source, tests pass an in-memory one.
import type { IndexedCriterion } from './criteria-index.js';

/** One NVD-style applicability criterion: a CPE match with an optional version range. */
export interface CpeCriterion {
  /** CPE 2.3 match string, e.g. 'cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*'. */
  criteria: string;
  vulnerable: boolean;
  versionStartIncluding?: string;
  versionStartExcluding?: string;
  versionEndIncluding?: string;
  versionEndExcluding?: string;
  /**
   * Where a CVE 5 criterion's CPE came from when the record names no CPE: 'alias' (the CNA's vendor and product
   * mapped to the CPE names components carry, e.g. Linux/Linux → linux:linux_kernel) or 'name' (the CNA's names
   * normalised as CPE names are). Absent: a CPE the record lists. Matches by names are less certain.
   */
  origin?: 'alias' | 'name';
}

/** One OSV `affected` entry: a package in an ecosystem with its version ranges and explicit versions. */
export interface AffectedPackage {
  /** OSV ecosystem as given, e.g. 'Debian:12', 'Ubuntu:18.04:LTS', 'Rocky Linux:8', 'npm'. */
  ecosystem: string;
  name: string;
  purl?: string;
  /** Ranges of type ECOSYSTEM or SEMVER (GIT ranges cannot be compared to a version and are dropped). */
  ranges: Array<{ type: string; events: Array<{ introduced?: string; fixed?: string; last_affected?: string; limit?: string }> }>;
  versions: string[];
}

export interface VulnerabilityRecord {
  /** Primary id: a CVE id when there is one, otherwise the OSV/GHSA id. */
  id: string;
  aliases: string[];
  /** Feed the record came from: 'nvd' | 'cve5' | 'osv' (absent: unknown). */
  source?: string;
  /** The record's own id in its feed when it differs from `id` (an OSV 'UBUNTU-CVE-2021-3782' filed under its CVE). */
  sourceId?: string;
  description?: string;
  published?: string;
  modified?: string;
  cwes: string[];
  cvss: {
    v2?: { baseScore: number; vector: string };
    v3?: { baseScore: number; vector: string; version: string };
    v4?: { baseScore: number; vector: string };
  };
  references: Array<{ url: string; description?: string }>;
  /**
   * Applicability, one group per NVD configuration (groups are alternatives). In a group, the `vulnerable`
   * criteria name the affected software; the non-vulnerable ones name the platform it runs on ("running on/with").
   * The matcher requires a vulnerable criterion to match and records the platform, because an image inventory
   * rarely identifies the hardware.
   */
  criteria: CpeCriterion[][];
  /** OSV affected packages (absent for NVD and CVE 5 records). */
  packages?: AffectedPackage[];
  /** Source files the record says hold the vulnerable code (CVE 5 `programFiles`, e.g. the kernel CNA's). */
  programFiles?: string[];
  /** Functions the record says hold the vulnerable code (CVE 5 `programRoutines`). */
  programRoutines?: string[];
  kev?: { dateAdded: string; dueDate?: string; knownRansomwareCampaignUse?: string; requiredAction?: string };
  epss?: { probability: number; percentile: number; date?: string };
  knownFixedVersion?: string;
}

/**
 * The one question the matcher asks a vulnerability database, for a whole inventory at once: the lookup keys of
 * its components, each chosen by the component's package type (a CPE names a product; a purl of an OSV ecosystem
 * names a package), answered in two steps over the database's indexes.
 */
export interface VulnerabilityQuery {
  /** CPE products (vendor and product unescaped, as in the criteria index) with the version to compare. */
  products: Array<{ vendor: string; product: string; version: string }>;
  /** OSV packages: ecosystem base ('Debian', 'Alpine', 'npm') and name as OSV spells it. */
  packages: Array<{ ecosystem: string; name: string }>;
  /**
   * The matcher's own criterion test: given the stored vulnerable criteria of the asked products (by
   * `${vendor}\0${product}`, at least every one that can hold an asked version; a database may leave out those whose
   * version keys cannot, criteria-index.ts keysAdmit), the record keys (criteria-index.ts recordKey, with the
   * criterion's stamp) to load.
   */
  select(criteria: Map<string, IndexedCriterion[]>): string[] | Promise<string[]>;
}

export interface VulnerabilityCandidates {
  /**
   * The selected records by key, with KEV and EPSS. A key names one version of its record: when the record has
   * changed since its criteria were read (or is gone), the key is absent, and the matcher asks again.
   */
  byKey: Map<string, VulnerabilityRecord>;
  /** The records naming each asked package, by `${ecosystem}\0${name}` (every asked package present). */
  byPackage: Map<string, VulnerabilityRecord[]>;
}

export interface VulnerabilitySource {
  query(query: VulnerabilityQuery): Promise<VulnerabilityCandidates>;
}
