// CVE JSON 5 record (CVE Services / cvelistV5) → VulnerabilityRecord. The CNA container gives the description,
// CWE, references and CVSS; ADP containers (CISA vulnrichment) add metrics and CPEs. Criteria are built only from
// the CPE strings a record lists (with its version entries as ranges): vendor and product names in free text are
// not CPEs, and guessing them would produce false matches.
import { FormatError } from '../unpack/handler.js';
import { cvss2BaseScore, cvss3BaseScore } from './cvss.js';
import { arr, CVE_ID, isObj, isoTime, num, obj, optStr, str, uniqueBy, type Obj } from './feed-values.js';
import type { CpeCriterion, VulnerabilityRecord } from './source.js';

const UNBOUNDED = new Set(['', '0', '*', 'unspecified', 'n/a', 'unknown']);

/** A CVE 5 `versions` entry as a criterion for one CPE; undefined for entries that are not 'affected'. */
function criterionFor(cpe: string, v: Obj): CpeCriterion | undefined {
  if (v.status !== 'affected') return undefined;
  const version = optStr(v.version) ?? '';
  const lessThan = optStr(v.lessThan);
  const lessThanOrEqual = optStr(v.lessThanOrEqual);
  const c: CpeCriterion = { criteria: cpe, vulnerable: true };
  if (lessThan === undefined && lessThanOrEqual === undefined) {
    if (UNBOUNDED.has(version)) return undefined;
    // an exact version: put it into the CPE's version field
    const parts = cpe.split(':');
    if (parts.length !== 13) return undefined;
    parts[5] = version.replace(/([:\\*?])/g, '\\$1');
    return { criteria: parts.join(':'), vulnerable: true };
  }
  if (!UNBOUNDED.has(version)) c.versionStartIncluding = version;
  if (lessThan !== undefined && lessThan !== '*') c.versionEndExcluding = lessThan;
  if (lessThanOrEqual !== undefined && lessThanOrEqual !== '*') c.versionEndIncluding = lessThanOrEqual;
  return c;
}

function criteriaOf(containers: Obj[]): CpeCriterion[][] {
  const groups: CpeCriterion[][] = [];
  for (const container of containers) {
    for (const affected of arr(container.affected).filter(isObj)) {
      const cpes = arr(affected.cpes).filter((c): c is string => typeof c === 'string' && c.startsWith('cpe:2.3:'));
      const versions = arr(affected.versions).filter(isObj);
      for (const cpe of cpes) {
        const group = versions.map((v) => criterionFor(cpe, v)).filter((c): c is CpeCriterion => c !== undefined);
        // a CPE with its own version and no version list names exactly that version
        if (versions.length === 0 && cpe.split(':')[5] !== '*') group.push({ criteria: cpe, vulnerable: true });
        if (group.length > 0) groups.push(group);
      }
    }
  }
  return groups;
}

function cvssOf(containers: Obj[]): VulnerabilityRecord['cvss'] {
  const cvss: VulnerabilityRecord['cvss'] = {};
  for (const m of containers.flatMap((c) => arr(c.metrics).filter(isObj))) {
    const v31 = isObj(m.cvssV3_1) ? m.cvssV3_1 : isObj(m.cvssV3_0) ? m.cvssV3_0 : undefined;
    if (v31 && !cvss.v3) {
      const vector = String(v31.vectorString ?? '');
      const score = num(v31.baseScore) ?? cvss3BaseScore(vector);
      if (score !== undefined) cvss.v3 = { baseScore: score, vector, version: String(v31.version ?? '3.1') };
    }
    if (isObj(m.cvssV4_0) && !cvss.v4) {
      const score = num(m.cvssV4_0.baseScore);
      if (score !== undefined) cvss.v4 = { baseScore: score, vector: String(m.cvssV4_0.vectorString ?? '') };
    }
    if (isObj(m.cvssV2_0) && !cvss.v2) {
      const vector = String(m.cvssV2_0.vectorString ?? '');
      const score = num(m.cvssV2_0.baseScore) ?? cvss2BaseScore(vector);
      if (score !== undefined) cvss.v2 = { baseScore: score, vector };
    }
  }
  return cvss;
}

export function isCve5(value: Obj): boolean {
  return value.dataType === 'CVE_RECORD' || (isObj(value.cveMetadata) && isObj(value.containers));
}

export function cve5ToRecord(input: unknown): VulnerabilityRecord {
  const doc = obj(input, 'record');
  const meta = obj(doc.cveMetadata, 'cveMetadata');
  const id = str(meta.cveId, 'cveMetadata.cveId');
  if (!CVE_ID.test(id)) throw new FormatError(`cveMetadata.cveId '${id}' is not a CVE id`);
  const containersObj = obj(doc.containers, 'containers');
  const cna = isObj(containersObj.cna) ? containersObj.cna : {};
  const containers = [cna, ...arr(containersObj.adp).filter(isObj)];
  const descriptions = arr(cna.descriptions).filter(isObj);
  const description = optStr((descriptions.find((d) => String(d.lang).startsWith('en')) ?? descriptions[0])?.value)
    ?? optStr(arr(cna.rejectedReasons).filter(isObj)[0]?.value);
  const cwes = uniqueBy(
    containers
      .flatMap((c) => arr(c.problemTypes).filter(isObj))
      .flatMap((p) => arr(p.descriptions).filter(isObj))
      .map((d) => String(d.cweId ?? ''))
      .filter((v) => /^CWE-\d+$/.test(v)),
    (v) => v,
  );
  const references = uniqueBy(
    containers
      .flatMap((c) => arr(c.references).filter(isObj))
      .filter((r) => typeof r.url === 'string')
      .map((r) => {
        const text = optStr(r.name) ?? (arr(r.tags).length > 0 ? arr(r.tags).join(', ') : undefined);
        return text ? { url: String(r.url), description: text } : { url: String(r.url) };
      }),
    (r) => r.url,
  );
  const record: VulnerabilityRecord = {
    id,
    aliases: [],
    source: 'cve5',
    cwes,
    cvss: cvssOf(containers),
    references,
    // a rejected record affects nothing
    criteria: meta.state === 'REJECTED' ? [] : criteriaOf(containers),
  };
  if (description) record.description = description;
  const published = isoTime(meta.datePublished);
  const modified = isoTime(meta.dateUpdated) ?? published;
  if (published) record.published = published;
  if (modified) record.modified = modified;
  return record;
}
