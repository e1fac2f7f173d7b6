// SPDX 2.3 JSON SBOM: the image is the described package (with SHA-256/SHA-1/MD5 checksums); each component
// is a package with its checksums, CPE and purl external references, and Firmscope's evidence as a comment;
// relationships: DOCUMENT DESCRIBES image, image CONTAINS each package, package DEPENDS_ON package.
import type { Component, Hashes } from '../engine/types.js';
import { ENGINE_VERSION } from '../engine/version.js';
import { analysisStatus, incompleteLine } from './analysis-status.js';
import type { ReportGenerator, ReportInput } from './report.js';
import { documentUuid, imageName, imageVersion } from './sbom-common.js';

const PURPOSE: Record<Component['type'], string> = {
  application: 'APPLICATION',
  library: 'LIBRARY',
  'operating-system': 'OPERATING_SYSTEM',
  firmware: 'FIRMWARE',
  framework: 'FRAMEWORK',
  device: 'DEVICE',
  file: 'FILE',
};

function checksums(h: Hashes | undefined): Array<{ algorithm: string; checksumValue: string }> {
  if (!h) return [];
  return [
    { algorithm: 'SHA256', checksumValue: h.sha256 },
    { algorithm: 'SHA1', checksumValue: h.sha1 },
    { algorithm: 'MD5', checksumValue: h.md5 },
  ];
}

/** SPDX identifiers allow only letters, digits, '.' and '-'. */
function spdxId(ref: string, taken: Set<string>): string {
  const base = `SPDXRef-Package-${ref.replace(/[^A-Za-z0-9.-]+/g, '-').replace(/-+$/, '')}`;
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

/** A declared license only when it is a plain SPDX-style expression; anything else stays NOASSERTION. */
function declaredLicense(licenses: string[] | undefined): string {
  if (!licenses?.length) return 'NOASSERTION';
  const expr = licenses.join(' AND ');
  return /^[A-Za-z0-9.+-]+(?: (?:AND|OR|WITH) [A-Za-z0-9.+-]+)*$/.test(expr) ? expr : 'NOASSERTION';
}

function evidenceComment(c: Component): string {
  const lines = c.evidence.slice(0, 20).map((e) => `${e.method} in ${e.path}${e.match ? `: ${e.match}` : ''}`);
  return `Identified by ${c.foundBy.join(', ')} (confidence ${c.confidence})${c.architecture ? `, architecture ${c.architecture}` : ''}. Evidence: ${lines.join(' | ')}`;
}

/** An annotation on the image package saying whether the whole image was analysed, and why not. */
function imageAnnotations(input: ReportInput, now: Date): { annotations?: Array<Record<string, string>> } {
  const analysis = analysisStatus(input.result);
  if (!analysis) return {};
  return {
    annotations: [{
      annotationDate: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      annotationType: 'REVIEW',
      annotator: `Tool: firmscope-${ENGINE_VERSION}`,
      comment: analysis.complete ? 'analysis complete' : incompleteLine(analysis),
    }],
  };
}

export function buildSpdx(input: ReportInput): Record<string, unknown> {
  const now = input.now ?? new Date();
  const { result } = input;
  const name = imageName(input);
  const taken = new Set<string>(['SPDXRef-DOCUMENT', 'SPDXRef-Image']);
  const ids = new Map(result.components.map((c) => [c.ref, spdxId(c.ref, taken)]));
  const imageVersionInfo = imageVersion(input);
  const packages: Array<Record<string, unknown>> = [
    {
      SPDXID: 'SPDXRef-Image',
      name,
      ...(imageVersionInfo ? { versionInfo: imageVersionInfo } : {}),
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      checksums: checksums(result.image.hashes),
      licenseConcluded: 'NOASSERTION',
      licenseDeclared: 'NOASSERTION',
      copyrightText: 'NOASSERTION',
      primaryPackagePurpose: 'FIRMWARE',
      comment: `Firmware image (${result.image.type}, ${result.image.size} bytes)${input.subject ? ` of product ${input.subject.product.name}` : ''}`,
      ...imageAnnotations(input, now),
    },
  ];
  for (const c of result.components) {
    const externalRefs: Array<Record<string, string>> = [];
    if (c.cpe) externalRefs.push({ referenceCategory: 'SECURITY', referenceType: 'cpe23Type', referenceLocator: c.cpe });
    if (c.purl) externalRefs.push({ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: c.purl });
    packages.push({
      SPDXID: ids.get(c.ref),
      name: c.name,
      ...(c.version ? { versionInfo: c.version } : {}),
      supplier: c.supplier ? `Organization: ${c.supplier.replace(/[\r\n]+/g, ' ')}` : 'NOASSERTION',
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      ...(c.hashes ? { checksums: checksums(c.hashes) } : {}),
      licenseConcluded: 'NOASSERTION',
      licenseDeclared: declaredLicense(c.licenses),
      copyrightText: 'NOASSERTION',
      ...(externalRefs.length ? { externalRefs } : {}),
      primaryPackagePurpose: PURPOSE[c.type] ?? 'OTHER',
      sourceInfo: `found at ${c.paths.slice(0, 10).join(', ')}${c.paths.length > 10 ? ` and ${c.paths.length - 10} more` : ''}`,
      comment: evidenceComment(c),
    });
  }
  const relationships: Array<Record<string, string>> = [{ spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: 'SPDXRef-Image' }];
  for (const c of result.components) relationships.push({ spdxElementId: 'SPDXRef-Image', relationshipType: 'CONTAINS', relatedSpdxElement: ids.get(c.ref)! });
  for (const c of result.components) {
    for (const dep of c.dependsOn ?? []) {
      const target = ids.get(dep);
      if (target) relationships.push({ spdxElementId: ids.get(c.ref)!, relationshipType: 'DEPENDS_ON', relatedSpdxElement: target });
    }
  }
  const uuid = documentUuid(input, now);
  return {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: `${name} SBOM`,
    documentNamespace: `https://firmscope.invalid/spdx/${encodeURIComponent(name)}-${uuid}`,
    creationInfo: { created: now.toISOString().replace(/\.\d{3}Z$/, 'Z'), creators: [`Tool: firmscope-${ENGINE_VERSION}`] },
    packages,
    relationships,
  };
}

export const spdxReport: ReportGenerator = {
  id: 'sbom-spdx',
  aliases: ['spdx', 'spdx-json'],
  mediaType: 'application/spdx+json',
  specVersion: '2.3',
  async generate(input: ReportInput): Promise<string> {
    return JSON.stringify(buildSpdx(input), null, 2) + '\n';
  },
};
