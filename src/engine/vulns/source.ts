// The one query the matcher needs from a vulnerability database, so the engine stays free of any database:
// the service passes a store-backed source, tests pass an in-memory one.

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

export interface VulnerabilityRecord {
  /** Primary id: a CVE id when there is one, otherwise the OSV/GHSA id. */
  id: string;
  aliases: string[];
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
  /** Configurations flattened to criteria; each group lists criteria that must hold together (AND), groups are OR. */
  criteria: CpeCriterion[][];
  kev?: { dateAdded: string; dueDate?: string; knownRansomwareCampaignUse?: string; requiredAction?: string };
  epss?: { probability: number; percentile: number; date?: string };
  knownFixedVersion?: string;
}

export interface VulnerabilitySource {
  /** Records with at least one criterion for this CPE vendor and product (lower-case, as in CPE 2.3). */
  byProduct(vendor: string, product: string): Promise<VulnerabilityRecord[]>;
}
