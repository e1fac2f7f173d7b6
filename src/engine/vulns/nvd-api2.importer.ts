// NVD CVE API 2.0: one `cve` object (an element of a response page's `vulnerabilities`, or a single-record file
// as in fkie-cad/nvd-json-data-feeds) → VulnerabilityRecord. Configurations become criteria groups, CVSS v2/v3.x/v4
// metrics prefer NVD's Primary entry, and the CISA fields NVD carries become the KEV entry.
import { FormatError } from '../format-error.js';
import { arr, CVE_ID, isObj, isoTime, num, obj, optStr, str, uniqueBy, type Obj } from './feed-values.js';
import type { CpeCriterion, VulnerabilityRecord } from './source.js';

/** Prefers the NVD 'Primary' metric, then the first one. */
function pickMetric(list: unknown): Obj | undefined {
  const metrics = arr(list).filter(isObj);
  return metrics.find((m) => m.type === 'Primary') ?? metrics[0];
}

function cvssOf(metrics: Obj): VulnerabilityRecord['cvss'] {
  const cvss: VulnerabilityRecord['cvss'] = {};
  const data = (m: Obj | undefined) => (m && isObj(m.cvssData) ? m.cvssData : undefined);
  const v2 = data(pickMetric(metrics.cvssMetricV2));
  const v2Score = num(v2?.baseScore);
  if (v2 && v2Score !== undefined) cvss.v2 = { baseScore: v2Score, vector: String(v2.vectorString ?? '') };
  const v3 = data(pickMetric(metrics.cvssMetricV31)) ?? data(pickMetric(metrics.cvssMetricV30));
  const v3Score = num(v3?.baseScore);
  if (v3 && v3Score !== undefined) {
    cvss.v3 = { baseScore: v3Score, vector: String(v3.vectorString ?? ''), version: String(v3.version ?? '3.1') };
  }
  const v4 = data(pickMetric(metrics.cvssMetricV40));
  const v4Score = num(v4?.baseScore);
  if (v4 && v4Score !== undefined) cvss.v4 = { baseScore: v4Score, vector: String(v4.vectorString ?? '') };
  return cvss;
}

function criterionOf(m: Obj, where: string): CpeCriterion {
  const c: CpeCriterion = { criteria: str(m.criteria ?? m.cpe23Uri, `${where}.criteria`), vulnerable: m.vulnerable === true };
  for (const key of ['versionStartIncluding', 'versionStartExcluding', 'versionEndIncluding', 'versionEndExcluding'] as const) {
    const v = optStr(m[key]);
    if (v !== undefined) c[key] = v;
  }
  return c;
}

/**
 * Each configuration is one group; negated nodes ("not on") name no affected software and are left out. The
 * non-vulnerable criteria of a group are its platform (running on / with hardware), which the matcher evaluates
 * against the image's identified platform. Also the form of CVE 5 `cpeApplicability`.
 */
export function configurationCriteria(configurations: unknown): CpeCriterion[][] {
  const groups: CpeCriterion[][] = [];
  arr(configurations).forEach((cfg, i) => {
    const group: CpeCriterion[] = [];
    arr(obj(cfg, `configurations[${i}]`).nodes).forEach((node, j) => {
      const n = obj(node, `configurations[${i}].nodes[${j}]`);
      if (n.negate === true) return;
      arr(n.cpeMatch).forEach((m, k) => group.push(criterionOf(obj(m, `cpeMatch[${k}]`), `configurations[${i}].nodes[${j}].cpeMatch[${k}]`)));
    });
    if (group.length > 0) groups.push(group);
  });
  return groups;
}

export function nvdCveToRecord(input: unknown): VulnerabilityRecord {
  const cve = obj(input, 'cve');
  const id = str(cve.id, 'cve.id');
  if (!CVE_ID.test(id)) throw new FormatError(`cve.id '${id}' is not a CVE id`);
  const descriptions = arr(cve.descriptions).filter(isObj);
  const description = optStr((descriptions.find((d) => d.lang === 'en') ?? descriptions[0])?.value);
  const cwes = uniqueBy(
    arr(cve.weaknesses)
      .filter(isObj)
      .flatMap((w) => arr(w.description).filter(isObj))
      .map((d) => String(d.value ?? ''))
      .filter((v) => /^CWE-\d+$/.test(v)),
    (v) => v,
  );
  const references = uniqueBy(
    arr(cve.references)
      .filter(isObj)
      .filter((r) => typeof r.url === 'string')
      .map((r) => {
        const tags = arr(r.tags).map(String);
        return tags.length > 0 ? { url: String(r.url), description: tags.join(', ') } : { url: String(r.url) };
      }),
    (r) => r.url,
  );
  const record: VulnerabilityRecord = {
    id,
    aliases: [],
    source: 'nvd',
    cwes,
    cvss: cvssOf(isObj(cve.metrics) ? cve.metrics : {}),
    references,
    criteria: configurationCriteria(cve.configurations),
  };
  if (description !== undefined) record.description = description;
  const published = isoTime(cve.published);
  const modified = isoTime(cve.lastModified);
  if (published) record.published = published;
  if (modified) record.modified = modified;
  const kevAdded = optStr(cve.cisaExploitAdd);
  if (kevAdded) {
    record.kev = { dateAdded: kevAdded };
    const due = optStr(cve.cisaActionDue);
    const action = optStr(cve.cisaRequiredAction);
    if (due) record.kev.dueDate = due;
    if (action) record.kev.requiredAction = action;
  }
  return record;
}
