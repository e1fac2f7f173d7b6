// CycloneDX 1.6 XML SBOM: the same model as the JSON SBOM (sbom-cyclonedx.ts), serialised by the official
// library's XML serializer (which uses xmlbuilder2). The library models no evidence occurrences, so the
// `evidence` elements are added to its normalised element tree before it is written, as the JSON SBOM does.
import { Serialize, Spec } from '@cyclonedx/cyclonedx-library';
import type { Component } from '../engine/types.js';
import type { ReportGenerator, ReportInput } from './report.js';
import { buildCycloneDxBom, evidenceOf } from './sbom-cyclonedx.js';

type Element = Serialize.XML.Types.SimpleXml.Element;
type Models = Parameters<Serialize.XmlSerializer['serialize']>[0];

const el = (name: string, children?: Element['children'], attributes?: Element['attributes']): Element =>
  ({ type: 'element', name, ...(attributes ? { attributes } : {}), ...(children !== undefined ? { children } : {}) });

/** `evidenceOf` (the JSON shape) as XML elements in the XSD's order. */
function evidenceElement(c: Component): Element {
  const evidence = evidenceOf(c) as {
    identity: Array<{ field: string; confidence: number; concludedValue?: string; methods: Array<{ technique: string; confidence: number; value?: string }> }>;
    occurrences: Array<{ location: string; offset?: number }>;
  };
  const identities = evidence.identity.map((i) => el('identity', [
    el('field', i.field),
    el('confidence', i.confidence),
    ...(i.concludedValue ? [el('concludedValue', i.concludedValue)] : []),
    el('methods', i.methods.map((m) => el('method', [
      el('technique', m.technique), el('confidence', m.confidence), ...(m.value ? [el('value', m.value)] : []),
    ]))),
  ]));
  const occurrences = evidence.occurrences.map((o) => el('occurrence', [
    el('location', o.location), ...(o.offset !== undefined ? [el('offset', o.offset)] : []),
  ]));
  return el('evidence', [...identities, ...(occurrences.length ? [el('occurrences', occurrences)] : [])]);
}

/** Elements a component may have after `evidence` (CycloneDX 1.6 XSD); evidence goes before the first of them. */
const AFTER_EVIDENCE = new Set(['releaseNotes', 'modelCard', 'data', 'cryptoProperties', 'tags', 'signature']);

class EvidenceXmlSerializer extends Serialize.XmlSerializer {
  constructor(private readonly components: Map<string, Component>) {
    super(new Serialize.XML.Normalize.Factory(Spec.Spec1dot6));
  }

  protected override _normalize(bom: Models, options?: Parameters<Serialize.XmlSerializer['serialize']>[1]): Element {
    const root = super._normalize(bom, options);
    const list = childElements(root).find((e) => e.name === 'components');
    for (const element of list ? childElements(list) : []) {
      const component = this.components.get(String(element.attributes?.['bom-ref'] ?? ''));
      if (!component) continue;
      const children = childElements(element);
      const at = children.findIndex((e) => AFTER_EVIDENCE.has(e.name));
      children.splice(at < 0 ? children.length : at, 0, evidenceElement(component));
      element.children = children;
    }
    return root;
  }
}

function childElements(e: Element): Element[] {
  const children = e.children;
  if (children === undefined || typeof children === 'string' || typeof children === 'number') return [];
  const list = [...children].filter((c): c is Element => c.type === 'element');
  e.children = list;
  return list;
}

export const cycloneDxXmlReport: ReportGenerator = {
  id: 'sbom-cyclonedx-xml',
  aliases: ['cyclonedx-xml'],
  mediaType: 'application/vnd.cyclonedx+xml; version=1.6',
  specVersion: '1.6',
  async generate(input: ReportInput): Promise<string> {
    const serializer = new EvidenceXmlSerializer(new Map(input.result.components.map((c) => [c.ref, c])));
    return serializer.serialize(buildCycloneDxBom(input), { sortLists: true, space: 2 }) + '\n';
  },
};
