// OpenVEX 0.2.0 (openvex/spec OPENVEX-SPEC.md): one statement per dependency vulnerability, its status taken
// from the finding's issue status, with the justification and comment the team recorded with that status. The
// product is the image (a generic purl pinned by its SHA-256, and its hashes); the subcomponent is the component
// the vulnerability was matched to (purl, CPE 2.3).
// API: vexReport:openVEX; CLI: --format openvex.
import { ENGINE_VERSION } from '../engine/version.js';
import type { ReportFinding, ReportGenerator, ReportInput } from './report.js';
import { documentUuid } from './sbom-common.js';
import { advisoryUrl, aliasesOf, imagePurl, REJECTED_STATEMENT, vexFindings } from './vex-common.js';

export const OPENVEX_CONTEXT = 'https://openvex.dev/ns/v0.2.0';

type Json = Record<string, unknown>;
export type OpenVexStatus = 'not_affected' | 'affected' | 'fixed' | 'under_investigation';

/** inProgress is the team's investigation, not a verdict: under_investigation. No issue status maps to affected. */
const STATUS: Record<ReportFinding['issueStatus'], OpenVexStatus> = {
  new: 'under_investigation',
  inProgress: 'under_investigation',
  remediated: 'fixed',
  rejected: 'not_affected',
};

const NOTES: Record<ReportFinding['issueStatus'], string> = {
  new: 'Matched by Firmscope and not yet triaged by the product team (issue status: new).',
  inProgress: 'The product team is investigating this finding (issue status: inProgress).',
  remediated: 'Marked remediated by the product team (issue status: remediated).',
  rejected: 'Rejected by the product team (issue status: rejected).',
};

function subcomponent(f: ReportFinding): Json | undefined {
  const c = f.component;
  if (!c || (!c.purl && !c.cpe)) return undefined;
  return {
    '@id': c.purl ?? c.cpe,
    identifiers: { ...(c.purl ? { purl: c.purl } : {}), ...(c.cpe ? { cpe23: c.cpe } : {}) },
  };
}

function statement(f: ReportFinding, product: Json): Json {
  const status = STATUS[f.issueStatus];
  const aliases = aliasesOf(f);
  const sub = subcomponent(f);
  const out: Json = {
    vulnerability: {
      '@id': advisoryUrl(f.pname).url,
      name: f.pname,
      ...(f.description ? { description: f.description } : {}),
      ...(aliases.length ? { aliases } : {}),
    },
    products: [{ ...product, ...(sub ? { subcomponents: [sub] } : {}) }],
    status,
    status_notes: `${NOTES[f.issueStatus]} Component: ${f.component ? `${f.component.name}${f.component.version ? ` ${f.component.version}` : ''}` : 'unknown'}.`,
  };
  if (status === 'not_affected') {
    // The spec wants a justification or an impact statement. The team's comment is the impact statement; with
    // neither recorded, the statement says so rather than claim a justification label the data does not support.
    if (f.justification) out.justification = f.justification;
    if (f.statusComment) out.impact_statement = f.statusComment;
    else if (!f.justification) out.impact_statement = REJECTED_STATEMENT;
  } else if (f.statusComment) {
    out.status_notes = `${String(out.status_notes)} Comment: ${f.statusComment}`;
  }
  return out;
}

export function openVexDocument(input: ReportInput): Json {
  const now = input.now ?? new Date();
  const { hashes } = input.result.image;
  const purl = imagePurl(input);
  const product: Json = {
    '@id': purl,
    identifiers: { purl },
    hashes: { 'sha-256': hashes.sha256, sha1: hashes.sha1, md5: hashes.md5 },
  };
  return {
    '@context': OPENVEX_CONTEXT,
    '@id': `urn:uuid:${documentUuid(input, now)}`,
    author: input.subject ? `${input.subject.product.name} product team, through Firmscope` : 'Firmscope',
    role: input.subject ? 'Product team issue workflow' : 'Automated analysis (untriaged)',
    timestamp: now.toISOString(),
    version: 1,
    tooling: `firmscope ${ENGINE_VERSION}`,
    statements: vexFindings(input).map((f) => statement(f, product)),
  };
}

export const openVexReport: ReportGenerator = {
  id: 'vex-openvex',
  aliases: ['openvex'],
  mediaType: 'application/json',
  specVersion: '0.2.0',
  async generate(input: ReportInput): Promise<string> {
    return JSON.stringify(openVexDocument(input), null, 2) + '\n';
  },
};
