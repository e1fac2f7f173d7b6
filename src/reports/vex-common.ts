// Shared by the VEX and SARIF generators: the findings with their workflow status (offline, the engine's
// findings count as 'new'), how the image is identified (the SBOM's bom-ref, a generic purl pinned by the
// image's SHA-256), and where a vulnerability id is looked up.
import { buildPurl } from '../engine/purl.js';
import type { ReportFinding, ReportInput } from './report.js';
import { imageName, imageVersion } from './sbom-common.js';
import { IMAGE_REF } from './sbom-cyclonedx.js';

export { IMAGE_REF };

/** Every finding with an id and an issue status; offline (no service) the engine's findings are untriaged. */
export function reportFindings(input: ReportInput): ReportFinding[] {
  return input.findings ?? input.result.findings.map((f) => ({ ...f, id: f.fingerprint, issueStatus: 'new' as const }));
}

/** The findings a VEX document speaks about: vulnerabilities of identified components. */
export function vexFindings(input: ReportInput): ReportFinding[] {
  return reportFindings(input)
    .filter((f) => f.findingType === 'dependencyVulnerability')
    .sort((a, b) => a.pname.localeCompare(b.pname) || (a.component?.ref ?? '').localeCompare(b.component?.ref ?? '') || a.id.localeCompare(b.id));
}

/** `pkg:generic/<image name>@<version>?checksum=sha256:<hash>`: the image as a product identifier. */
export function imagePurl(input: ReportInput): string {
  return buildPurl({
    type: 'generic',
    name: imageName(input),
    version: imageVersion(input),
    qualifiers: { checksum: `sha256:${input.result.image.hashes.sha256}` },
  });
}

/** The other ids a finding is known by (GHSA, OSV, a second CVE), without its main id. */
export function aliasesOf(f: ReportFinding): string[] {
  const ids = f.identifiers.flatMap((i) => [i.cve, i.ghsa, i.osv].filter((x): x is string => !!x));
  return [...new Set(ids)].filter((id) => id !== f.pname);
}

/** CWE numbers of a finding ('CWE-399' → 399); NVD's 'NVD-CWE-Other' and 'NVD-CWE-noinfo' are not CWEs. */
export function cwesOf(f: ReportFinding): number[] {
  const out = f.identifiers.map((i) => /^CWE-(\d+)$/.exec(i.cwe ?? '')?.[1]).filter((x): x is string => !!x).map(Number);
  return [...new Set(out)];
}

/** Where a vulnerability id is described: NVD for CVEs, GitHub for GHSA, OSV for the rest. */
export function advisoryUrl(id: string): { name: string; url: string } {
  if (/^CVE-\d+-\d+$/.test(id)) return { name: 'NVD', url: `https://nvd.nist.gov/vuln/detail/${id}` };
  if (id.startsWith('GHSA-')) return { name: 'GitHub', url: `https://github.com/advisories/${id}` };
  return { name: 'OSV', url: `https://osv.dev/vulnerability/${encodeURIComponent(id)}` };
}

/**
 * Why a rejected finding is not affecting the product. Firmscope's workflow records a rejection without a
 * machine-readable reason, so no VEX justification label can honestly be claimed: the statement says what is known.
 */
export const REJECTED_STATEMENT =
  "The product team rejected this finding in Firmscope's issue workflow: they assessed that the product is not affected. The reason was not recorded in machine-readable form.";

/** The fix a finding's data supports: its recommended action, or an upgrade to its known fixed version. */
export function fixAdvice(f: ReportFinding): string | undefined {
  if (f.recommendedAction) return f.recommendedAction;
  if (f.knownFixedVersion && f.component) return `Upgrade ${f.component.name} to ${f.knownFixedVersion} or later.`;
  return undefined;
}
