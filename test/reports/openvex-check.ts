// The OpenVEX 0.2.0 rules a document must follow (openvex/spec OPENVEX-SPEC.md): required document fields, the
// status and justification vocabularies, a product per statement, an action for `affected`, and a
// justification or impact statement for `not_affected`. Returns one line per problem.
const STATUSES = ['not_affected', 'affected', 'fixed', 'under_investigation'];
const JUSTIFICATIONS = ['component_not_present', 'vulnerable_code_not_present', 'vulnerable_code_not_in_execute_path', 'vulnerable_code_cannot_be_controlled_by_adversary', 'inline_mitigations_already_exist'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const IRI = /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/;

export function openVexProblems(doc: any): string[] {
  const out: string[] = [];
  if (!/^https:\/\/openvex\.dev\/ns/.test(doc['@context'] ?? '')) out.push('@context is not the OpenVEX context');
  if (!IRI.test(doc['@id'] ?? '')) out.push('@id is not an IRI');
  if (typeof doc.author !== 'string' || !doc.author) out.push('author missing');
  if (!ISO.test(doc.timestamp ?? '')) out.push('timestamp is not a date-time');
  if (!Number.isInteger(doc.version) || doc.version < 1) out.push('version must be an integer >= 1');
  if (!Array.isArray(doc.statements)) return [...out, 'statements missing'];
  doc.statements.forEach((s: any, i: number) => {
    const at = `statements[${i}]`;
    if (typeof s.vulnerability?.name !== 'string' || !s.vulnerability.name) out.push(`${at}: vulnerability.name missing`);
    if (s.vulnerability?.['@id'] !== undefined && !IRI.test(s.vulnerability['@id'])) out.push(`${at}: vulnerability @id is not an IRI`);
    if (!STATUSES.includes(s.status)) out.push(`${at}: status must be one of ${STATUSES.join(', ')}`);
    if (!Array.isArray(s.products) || s.products.length === 0) out.push(`${at}: no product`);
    for (const p of s.products ?? []) {
      if (!p['@id'] && !p.identifiers && !p.hashes) out.push(`${at}: a product without @id, identifiers or hashes`);
      if (p['@id'] !== undefined && !IRI.test(p['@id'])) out.push(`${at}: product @id is not an IRI`);
      for (const c of p.subcomponents ?? []) if (c['@id'] !== undefined && !IRI.test(c['@id'])) out.push(`${at}: subcomponent @id is not an IRI`);
      for (const key of Object.keys(p.identifiers ?? {})) if (!['purl', 'cpe22', 'cpe23'].includes(key)) out.push(`${at}: unknown identifier type ${key}`);
    }
    if (s.status === 'affected' && !s.action_statement) out.push(`${at}: affected needs action_statement`);
    if (s.justification !== undefined && !JUSTIFICATIONS.includes(s.justification)) out.push(`${at}: justification must be one of ${JUSTIFICATIONS.join(', ')}`);
    if (s.status === 'not_affected' && !s.justification && !s.impact_statement) out.push(`${at}: not_affected needs a justification or an impact_statement`);
    if (s.status !== 'not_affected' && s.justification !== undefined) out.push(`${at}: justification only belongs to not_affected`);
  });
  return out;
}
