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
  kev?: { dateAdded: string; dueDate?: string; knownRansomwareCampaignUse?: string; requiredAction?: string };
  epss?: { probability: number; percentile: number; date?: string };
  knownFixedVersion?: string;
}

export interface VulnerabilitySource {
  /** Records with at least one criterion for this CPE vendor and product (lower-case, as in CPE 2.3). */
  byProduct(vendor: string, product: string): Promise<VulnerabilityRecord[]>;
  /**
   * Optional batch form of byProduct, keyed `${vendor}\0${product}`: a database answers a whole inventory in a
   * few queries instead of one per component. Every requested pair must be present in the result (empty or not).
   */
  byProducts?(pairs: Array<[vendor: string, product: string]>): Promise<Map<string, VulnerabilityRecord[]>>;
  /**
   * Optional criteria-first lookup: the CPE criteria stored for each asked (vendor, product), keyed
   * `${vendor}\0${product}`, at least every criterion that can match one of the asked versions (a database may
   * leave out the ones whose range cannot hold them; it may also return more). The matcher tests them itself and
   * then loads, with recordsByKeys, only the records with a matching criterion. Both methods or neither.
   */
  criteriaFor?(queries: Array<{ vendor: string; product: string; version: string }>): Promise<Map<string, IndexedCriterion[]>>;
  /**
   * Records by the keys the criteria give (criteria-index.ts recordKey), with KEV and EPSS; unknown keys are
   * absent. A key with a stamp names one version of its record: when the record has changed since its criteria
   * were read, the key is absent too (the matcher relies on the criteria lining up with the record).
   */
  recordsByKeys?(keys: string[]): Promise<Map<string, VulnerabilityRecord>>;
  /** Records affecting an OSV package (ecosystem prefix such as 'Debian', 'Alpine', 'npm'; name as given). */
  byPackage?(ecosystem: string, name: string): Promise<VulnerabilityRecord[]>;
}
