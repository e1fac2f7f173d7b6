// CycloneDX 1.6 JSON SBOM, built with the official @cyclonedx/cyclonedx-library: the image is the metadata
// component (with its hashes), every identified component carries type, name, version, CPE, purl, hashes and
// Firmscope properties, and dependencies come from package databases and DT_NEEDED. The library models no
// evidence occurrences yet, so `evidence` (identity methods and occurrences) is added to the normalized
// document before serialization; tests validate the result with the library's validator and the schema.
import { Enums, Models, Serialize, Spec } from '@cyclonedx/cyclonedx-library';
import type { Component, Hashes } from '../engine/types.js';
import { ENGINE_VERSION } from '../engine/version.js';
import { analysisProperties, analysisStatus } from './analysis-status.js';
import type { ReportGenerator, ReportInput } from './report.js';
import { documentUuid, imageName, imageVersion, TECHNIQUES } from './sbom-common.js';

export const IMAGE_REF = 'firmscope:image';

export function hashDictionary(h: Hashes | undefined): Models.HashDictionary {
  const d = new Models.HashDictionary();
  if (!h) return d;
  d.set(Enums.HashAlgorithm['SHA-256'], h.sha256);
  d.set(Enums.HashAlgorithm['SHA-1'], h.sha1);
  d.set(Enums.HashAlgorithm.MD5, h.md5);
  return d;
}

function toModel(c: Component): Models.Component {
  const model = new Models.Component(c.type as Enums.ComponentType, c.name, {
    bomRef: c.ref,
    version: c.version,
    hashes: hashDictionary(c.hashes),
    cpe: c.cpe,
    purl: c.purl,
  });
  if (c.supplier) model.supplier = new Models.OrganizationalEntity({ name: c.supplier });
  for (const l of c.licenses ?? []) model.licenses.add(new Models.NamedLicense(l));
  const props: Array<[string, string]> = [
    ['firmscope:confidence', String(c.confidence)],
    ['firmscope:foundBy', c.foundBy.join(',')],
  ];
  if (c.architecture) props.push(['firmscope:architecture', c.architecture]);
  for (const [name, value] of props) model.properties.add(new Models.Property(name, value));
  return model;
}

/** CycloneDX 1.6 `evidence`: identity (how name/version were found) and occurrences (where). */
export function evidenceOf(c: Component): Record<string, unknown> {
  const methods = new Map<string, { technique: string; confidence: number; value?: string }>();
  for (const e of c.evidence) {
    const technique = TECHNIQUES[e.method] ?? 'other';
    const key = `${technique}\0${e.match ?? ''}`;
    if (!methods.has(key)) methods.set(key, { technique, confidence: c.confidence, ...(e.match ? { value: `${e.method}: ${e.match}` } : {}) });
  }
  const occurrences = c.paths.map((location) => {
    const e = c.evidence.find((x) => x.path === location && x.offset !== undefined);
    return { location, ...(e?.offset !== undefined ? { offset: e.offset } : {}) };
  });
  const field = c.purl ? 'purl' : 'name';
  return {
    identity: [{ field, confidence: c.confidence, ...(c.purl ? { concludedValue: c.purl } : {}), methods: [...methods.values()].slice(0, 32) }],
    occurrences,
  };
}

/** The library's model of the SBOM (everything but the evidence, which the library does not model yet). */
export function buildCycloneDxBom(input: ReportInput): Models.Bom {
  const now = input.now ?? new Date();
  const { result } = input;
  const bom = new Models.Bom({ serialNumber: `urn:uuid:${documentUuid(input, now)}` });
  bom.metadata.timestamp = now;
  bom.metadata.tools.components.add(new Models.Component(Enums.ComponentType.Application, 'firmscope', { version: ENGINE_VERSION, group: 'firmscope' }));
  const image = new Models.Component(Enums.ComponentType.Firmware, imageName(input), { bomRef: IMAGE_REF, version: imageVersion(input), hashes: hashDictionary(result.image.hashes) });
  image.properties.add(new Models.Property('firmscope:imageType', result.image.type));
  image.properties.add(new Models.Property('firmscope:size', String(result.image.size)));
  if (input.subject) image.properties.add(new Models.Property('firmscope:product', input.subject.product.name));
  bom.metadata.component = image;
  // Whether the whole image was analysed: an SBOM of an incomplete analysis says so, and why.
  const analysis = analysisStatus(result);
  if (analysis) for (const p of analysisProperties(analysis)) bom.metadata.properties.add(new Models.Property(p.name, p.value));
  const models = new Map<string, Models.Component>();
  for (const c of result.components) {
    const model = toModel(c);
    models.set(c.ref, model);
    bom.components.add(model);
  }
  for (const c of result.components) {
    for (const dep of c.dependsOn ?? []) {
      const target = models.get(dep);
      if (target) models.get(c.ref)!.dependencies.add(target.bomRef);
    }
  }
  for (const model of models.values()) image.dependencies.add(model.bomRef);
  return bom;
}

export function buildCycloneDx(input: ReportInput): Record<string, unknown> {
  const bom = buildCycloneDxBom(input);
  const { result } = input;
  const factory = new Serialize.JSON.Normalize.Factory(Spec.Spec1dot6);
  const doc = factory.makeForBom().normalize(bom, { sortLists: true }) as unknown as Record<string, unknown>;
  const byRef = new Map(result.components.map((c) => [c.ref, c]));
  for (const entry of (doc.components as Array<Record<string, unknown>> | undefined) ?? []) {
    const c = byRef.get(String(entry['bom-ref']));
    if (c) entry.evidence = evidenceOf(c);
  }
  return doc;
}

export const cycloneDxReport: ReportGenerator = {
  id: 'sbom-cyclonedx',
  aliases: ['cyclonedx', 'cyclonedx-json'],
  mediaType: 'application/vnd.cyclonedx+json; version=1.6',
  specVersion: '1.6',
  async generate(input: ReportInput): Promise<string> {
    return JSON.stringify(buildCycloneDx(input), null, 2) + '\n';
  },
};
