// OSV record (ossf/osv-schema) → VulnerabilityRecord. A record that names exactly one CVE (as its id, an alias or
// Ubuntu's `upstream`) is filed under that CVE, so it merges with the NVD record of the same vulnerability; its
// own id becomes an alias. `related` ids are different vulnerabilities and are not aliases.
import { cvss2BaseScore, cvss3BaseScore, cvss4BaseScore } from './cvss.js';
import { arr, CVE_ID, isObj, isoTime, obj, optStr, str, uniqueBy, type Obj } from './feed-values.js';
import type { AffectedPackage, VulnerabilityRecord } from './source.js';

export function isOsv(value: Obj): boolean {
  return typeof value.id === 'string' && typeof value.modified === 'string'
    && (value.schema_version !== undefined || Array.isArray(value.affected) || typeof value.details === 'string' || typeof value.summary === 'string');
}

/** OSV gives CVSS vectors without scores: each is scored here (v4 by the FIRST lookup, v3.x and v2 by formula). */
function cvssOf(doc: Obj): VulnerabilityRecord['cvss'] {
  const cvss: VulnerabilityRecord['cvss'] = {};
  for (const s of arr(doc.severity).filter(isObj)) {
    const vector = optStr(s.score);
    if (!vector) continue;
    if (s.type === 'CVSS_V3' && !cvss.v3) {
      const score = cvss3BaseScore(vector);
      const version = /^CVSS:(3\.[01])\//.exec(vector)?.[1] ?? '3.1';
      if (score !== undefined) cvss.v3 = { baseScore: score, vector, version };
    } else if (s.type === 'CVSS_V2' && !cvss.v2) {
      const score = cvss2BaseScore(vector);
      if (score !== undefined) cvss.v2 = { baseScore: score, vector };
    } else if (s.type === 'CVSS_V4' && !cvss.v4) {
      const score = cvss4BaseScore(vector);
      if (score !== undefined) cvss.v4 = { baseScore: score, vector };
    }
  }
  return cvss;
}

function packagesOf(doc: Obj): AffectedPackage[] {
  return arr(doc.affected).filter(isObj).flatMap((a): AffectedPackage[] => {
    const pkg = isObj(a.package) ? a.package : undefined;
    const ecosystem = optStr(pkg?.ecosystem);
    const name = optStr(pkg?.name);
    if (!ecosystem || !name) return [];
    const ranges = arr(a.ranges).filter(isObj)
      .filter((r) => r.type === 'ECOSYSTEM' || r.type === 'SEMVER')
      .map((r) => ({
        type: String(r.type),
        events: arr(r.events).filter(isObj).map((e) => {
          const ev: AffectedPackage['ranges'][number]['events'][number] = {};
          for (const k of ['introduced', 'fixed', 'last_affected', 'limit'] as const) {
            const v = optStr(e[k]);
            if (v !== undefined) ev[k] = v;
          }
          return ev;
        }),
      }));
    const p: AffectedPackage = { ecosystem, name, ranges, versions: arr(a.versions).map(String) };
    const purl = optStr(pkg?.purl);
    if (purl) p.purl = purl;
    return [p];
  });
}

export function osvToRecord(input: unknown): VulnerabilityRecord {
  const doc = obj(input, 'record');
  const ownId = str(doc.id, 'id');
  const names = uniqueBy([ownId, ...arr(doc.aliases).map(String), ...arr(doc.upstream).map(String)], (v) => v);
  const cves = names.filter((n) => CVE_ID.test(n));
  const id = cves.length === 1 ? cves[0]! : ownId;
  const references = uniqueBy(
    arr(doc.references).filter(isObj).filter((r) => typeof r.url === 'string')
      .map((r) => (typeof r.type === 'string' ? { url: String(r.url), description: r.type } : { url: String(r.url) })),
    (r) => r.url,
  );
  const dbSpecific = isObj(doc.database_specific) ? doc.database_specific : {};
  const record: VulnerabilityRecord = {
    id,
    aliases: names.filter((n) => n !== id),
    source: 'osv',
    cwes: arr(dbSpecific.cwe_ids).map(String).filter((v) => /^CWE-\d+$/.test(v)),
    cvss: cvssOf(doc),
    references,
    criteria: [],
    // a withdrawn advisory affects nothing
    packages: doc.withdrawn ? [] : packagesOf(doc),
  };
  if (id !== ownId) record.sourceId = ownId;
  const description = optStr(doc.details) ?? optStr(doc.summary);
  if (description) record.description = description;
  const published = isoTime(doc.published);
  const modified = isoTime(doc.modified);
  if (published) record.published = published;
  if (modified) record.modified = modified;
  return record;
}
