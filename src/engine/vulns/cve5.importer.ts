// CVE JSON 5 record (CVE Services / cvelistV5) → VulnerabilityRecord. The CNA container gives the description,
// CWE, references and CVSS; ADP containers (CISA vulnrichment) add metrics and CPEs. Criteria come from the
// affected entries (cve5-affected.ts): from the CPEs a record lists, or from vendor and product when it lists none.
import { FormatError } from '../format-error.js';
import { cvss2BaseScore, cvss3BaseScore } from './cvss.js';
import { arr, CVE_ID, isObj, isoTime, num, obj, optStr, str, uniqueBy, type Obj } from './feed-values.js';
import { affectedCriteria, cnaProductCpe } from './cve5-affected.js';
import { configurationCriteria } from './nvd-api2.importer.js';
import type { CpeCriterion, VulnerabilityRecord } from './source.js';

/**
 * The record's applicability. `cpeApplicability` (CVE 5.1, NVD's configuration form: the kernel CNA writes it)
 * wins where a container has it. Otherwise one configuration group per affected entry and CPE: entries name their
 * software by CPEs where the record has any (an ADP often adds them); a record without a single CPE is matched by
 * its entries' vendor and product, through a known alias (Linux/Linux is linux:linux_kernel) or normalised as CPE
 * names are, so that records from CNAs that never write CPEs still match (marked by the criteria's `origin`).
 */
function criteriaOf(containers: Obj[]): CpeCriterion[][] {
  const applicability = containers.flatMap((c) => arr(c.cpeApplicability));
  if (applicability.length > 0) {
    const groups = configurationCriteria(applicability);
    const seen = new Set<string>();
    return groups.filter((g) => !seen.has(JSON.stringify(g)) && seen.add(JSON.stringify(g)));
  }
  const entries = containers.flatMap((c) => arr(c.affected).filter(isObj));
  const cpesOf = (affected: Obj) => arr(affected.cpes).filter((c): c is string => typeof c === 'string' && c.startsWith('cpe:2.3:') && c.split(':').length === 13);
  const anyCpe = entries.some((e) => cpesOf(e).length > 0);
  const groups: CpeCriterion[][] = [];
  const seen = new Set<string>();
  for (const affected of entries) {
    const named = anyCpe ? undefined : cnaProductCpe(affected);
    const cpes = anyCpe ? cpesOf(affected) : named ? [named.cpe] : [];
    for (const cpe of cpes) {
      const group = affectedCriteria(cpe, affected).map((c) => (named ? { ...c, origin: named.origin } : c));
      // the CNA and an ADP often repeat the same entry
      const key = JSON.stringify(group);
      if (group.length > 0 && !seen.has(key)) groups.push(group);
      seen.add(key);
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
  const entries = containers.flatMap((c) => arr(c.affected).filter(isObj));
  const programFiles = uniqueBy(entries.flatMap((e) => arr(e.programFiles)).filter((f): f is string => typeof f === 'string' && f.trim() !== ''), (f) => f);
  const programRoutines = uniqueBy(entries.flatMap((e) => arr(e.programRoutines).filter(isObj)).map((r) => String(r.name ?? '')).filter((n) => n !== ''), (n) => n);
  if (programFiles.length > 0) record.programFiles = programFiles;
  if (programRoutines.length > 0) record.programRoutines = programRoutines;
  const published = isoTime(meta.datePublished);
  const modified = isoTime(meta.dateUpdated) ?? published;
  if (published) record.published = published;
  if (modified) record.modified = modified;
  return record;
}
