// CycloneDX 1.6 VEX, built with the official @cyclonedx/cyclonedx-library: the image is the metadata component
// (same bom-ref as the SBOM, plus a purl pinned by its SHA-256), the affected components carry the SBOM's
// bom-refs, and every dependency vulnerability is a `vulnerabilities` entry with its source, aliases as
// references, advisories, CVSS ratings, CWEs, recommendation, `affects` and an analysis state taken from the
// issue status, with the justification and comment recorded with it. API: vexReport:cycloneDX;
// CLI: --format cyclonedx-vex.
import { Enums, Models, Serialize, Spec, Types } from '@cyclonedx/cyclonedx-library';
import type { Component } from '../engine/types.js';
import { ENGINE_VERSION } from '../engine/version.js';
import type { ReportFinding, ReportGenerator, ReportInput, VexJustification } from './report.js';
import { documentUuid, imageName, imageVersion } from './sbom-common.js';
import { hashDictionary } from './sbom-cyclonedx.js';
import { advisoryUrl, aliasesOf, cwesOf, fixAdvice, IMAGE_REF, imagePurl, REJECTED_STATEMENT, vexFindings } from './vex-common.js';

const { AnalysisState, AnalysisJustification, RatingMethod, Severity } = Enums.Vulnerability;
type Finding = ReportFinding;

/**
 * OpenVEX justification → CycloneDX `analysis.justification`, the closest label that says the same thing:
 * - component_not_present → code_not_present: CycloneDX has no "component absent" label; absent component means
 *   absent vulnerable code (requires_dependency would say another dependency is missing, which is not the claim).
 * - vulnerable_code_not_present → code_not_present.
 * - vulnerable_code_not_in_execute_path → code_not_reachable ("not invoked at runtime").
 * - vulnerable_code_cannot_be_controlled_by_adversary → requires_environment: the code runs, but the condition an
 *   exploit needs (attacker control of its input) does not exist where the product runs. No label is exact; the
 *   protected_* labels claim a specific protection (compiler, runtime, perimeter) the label does not name.
 * - inline_mitigations_already_exist → protected_by_mitigating_control.
 * The OpenVEX label itself is kept as the property firmscope:vexJustification.
 */
const CYCLONEDX_JUSTIFICATION: Record<VexJustification, Enums.Vulnerability.AnalysisJustification> = {
  component_not_present: AnalysisJustification.CodeNotPresent,
  vulnerable_code_not_present: AnalysisJustification.CodeNotPresent,
  vulnerable_code_not_in_execute_path: AnalysisJustification.CodeNotReachable,
  vulnerable_code_cannot_be_controlled_by_adversary: AnalysisJustification.RequiresEnvironment,
  inline_mitigations_already_exist: AnalysisJustification.ProtectedByMitigatingControl,
};

/**
 * new and inProgress → in_triage (inProgress is the team's investigation, not a verdict), remediated → resolved,
 * rejected → not_affected with its justification. The detail is the team's comment when they wrote one.
 */
function analysisOf(f: Finding): Models.Vulnerability.Analysis {
  const comment = f.statusComment;
  switch (f.issueStatus) {
    case 'new':
      return new Models.Vulnerability.Analysis({ state: AnalysisState.InTriage, detail: comment ?? 'Matched by Firmscope; not yet triaged by the product team.' });
    case 'inProgress':
      return new Models.Vulnerability.Analysis({ state: AnalysisState.InTriage, detail: comment ?? 'The product team is investigating this finding.' });
    case 'remediated':
      return new Models.Vulnerability.Analysis({ state: AnalysisState.Resolved, detail: comment ?? 'Marked remediated by the product team.' });
    case 'rejected':
      return new Models.Vulnerability.Analysis({
        state: AnalysisState.NotAffected,
        ...(f.justification ? { justification: CYCLONEDX_JUSTIFICATION[f.justification] } : {}),
        detail: comment ?? (f.justification ? undefined : REJECTED_STATEMENT),
      });
  }
}

/** Qualitative severity of a score: CVSS v3/v4 bands, and NVD's v2 bands (no 'critical' in v2). */
function severityOfScore(score: number, v2 = false): Enums.Vulnerability.Severity {
  if (score === 0) return Severity.None;
  if (score >= 9 && !v2) return Severity.Critical;
  if (score >= 7) return Severity.High;
  if (score >= 4) return Severity.Medium;
  return Severity.Low;
}

function ratingsOf(f: Finding, source: Models.Vulnerability.Source): Models.Vulnerability.Rating[] {
  const out: Models.Vulnerability.Rating[] = [];
  const { cvssV2, cvssV3, cvssV4 } = f.cvss ?? {};
  if (cvssV4) out.push(new Models.Vulnerability.Rating({ source, score: cvssV4.baseScore, severity: severityOfScore(cvssV4.baseScore), method: RatingMethod.CVSSv4, vector: cvssV4.vector }));
  if (cvssV3) {
    const method = cvssV3.version === '3.1' || cvssV3.vector.startsWith('CVSS:3.1/') ? RatingMethod.CVSSv31 : RatingMethod.CVSSv3;
    out.push(new Models.Vulnerability.Rating({ source, score: cvssV3.baseScore, severity: severityOfScore(cvssV3.baseScore), method, vector: cvssV3.vector }));
  }
  if (cvssV2) out.push(new Models.Vulnerability.Rating({ source, score: cvssV2.baseScore, severity: severityOfScore(cvssV2.baseScore, true), method: RatingMethod.CVSSv2, vector: cvssV2.vector }));
  return out;
}

function componentModel(ref: string, known: Component | undefined, f: Finding): Models.Component {
  const c = f.component!;
  const type = (known?.type ?? 'library') as Enums.ComponentType;
  return new Models.Component(type, known?.name ?? c.name, { bomRef: ref, version: known?.version ?? c.version, cpe: known?.cpe ?? c.cpe, purl: known?.purl ?? c.purl });
}

function vulnerabilityOf(f: Finding, affected: Models.Component | undefined): Models.Vulnerability.Vulnerability {
  const { name, url } = advisoryUrl(f.pname);
  const source = new Models.Vulnerability.Source({ name, url });
  const v = new Models.Vulnerability.Vulnerability({
    bomRef: `vulnerability:${f.id}`,
    id: f.pname,
    source,
    description: f.description ?? f.title ?? f.name,
    recommendation: fixAdvice(f),
    analysis: analysisOf(f),
  });
  for (const alias of aliasesOf(f)) v.references.add(new Models.Vulnerability.Reference(alias, new Models.Vulnerability.Source(advisoryUrl(alias))));
  for (const r of f.references ?? []) {
    if (URL.canParse(r.url)) v.advisories.add(new Models.Vulnerability.Advisory(r.url, r.description ? { title: r.description } : {}));
  }
  for (const rating of ratingsOf(f, source)) v.ratings.add(rating);
  for (const cwe of cwesOf(f)) if (Types.isCWE(cwe)) v.cwes.add(cwe);
  if (affected) v.affects.add(new Models.Vulnerability.Affect(affected.bomRef));
  const props: Array<[string, string]> = [
    ['firmscope:findingId', f.id],
    ['firmscope:fingerprint', f.fingerprint],
    ['firmscope:issueStatus', f.issueStatus],
    ...(f.justification ? [['firmscope:vexJustification', f.justification] as [string, string]] : []),
    ['firmscope:severity', f.severity],
    ['firmscope:isKev', String(f.isKev === true)],
  ];
  if (f.epss) props.push(['firmscope:epssProbability', String(f.epss.probability)], ['firmscope:epssPercentile', String(f.epss.percentile)]);
  for (const o of f.occurrences) props.push(['firmscope:occurrence', o.path]);
  for (const [n, value] of props) v.properties.add(new Models.Property(n, value));
  return v;
}

export function buildCycloneDxVex(input: ReportInput): Record<string, unknown> {
  const now = input.now ?? new Date();
  const bom = new Models.Bom({ serialNumber: `urn:uuid:${documentUuid(input, now)}` });
  bom.metadata.timestamp = now;
  bom.metadata.tools.components.add(new Models.Component(Enums.ComponentType.Application, 'firmscope', { version: ENGINE_VERSION, group: 'firmscope' }));
  const image = new Models.Component(Enums.ComponentType.Firmware, imageName(input), {
    bomRef: IMAGE_REF, version: imageVersion(input), hashes: hashDictionary(input.result.image.hashes), purl: imagePurl(input),
  });
  bom.metadata.component = image;
  const known = new Map(input.result.components.map((c) => [c.ref, c]));
  const models = new Map<string, Models.Component>();
  for (const f of vexFindings(input)) {
    const ref = f.component?.ref;
    let affected = ref ? models.get(ref) : undefined;
    if (ref && !affected) {
      affected = componentModel(ref, known.get(ref), f);
      models.set(ref, affected);
      bom.components.add(affected);
      image.dependencies.add(affected.bomRef);
    }
    bom.vulnerabilities.add(vulnerabilityOf(f, affected));
  }
  const factory = new Serialize.JSON.Normalize.Factory(Spec.Spec1dot6);
  return factory.makeForBom().normalize(bom, { sortLists: true }) as unknown as Record<string, unknown>;
}

export const cycloneDxVexReport: ReportGenerator = {
  id: 'vex-cyclonedx',
  aliases: ['cyclonedx-vex'],
  mediaType: 'application/vnd.cyclonedx+json; version=1.6',
  specVersion: '1.6',
  async generate(input: ReportInput): Promise<string> {
    return JSON.stringify(buildCycloneDxVex(input), null, 2) + '\n';
  },
};
