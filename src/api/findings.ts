// One finding in full, and its workflow: CreateFindingState and PATCH set the issue status of the finding's
// fingerprint in the product (carried forward to later images), with an optional comment and, for a rejection,
// an OpenVEX justification; both kept in the history and stated in the VEX reports.
import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/authenticate.js';
import { getFinding, ISSUE_STATUSES, setFindingStatus, updateFindingStatus, VEX_JUSTIFICATIONS, type FindingWithHistory } from '../services/findings.js';
import type { ApiDeps } from './deps.js';
import { errorResponses, Ulid } from './schemas.js';

const Params = Type.Object({ productId: Ulid('Product id'), findingId: Ulid('Finding id (from the grid)') });
const Status = Type.Union([...ISSUE_STATUSES.map((s) => Type.Literal(s)), Type.Literal('in progress')]);
const Comment = Type.Optional(Type.String({ maxLength: 4000 }));
const Justification = Type.Union(VEX_JUSTIFICATIONS.map((j) => Type.Literal(j)), {
  description: 'Why a rejected finding does not affect the product (OpenVEX justification); only with status rejected',
});
const StateChange = Type.Object({
  id: Type.String(), author: Type.Optional(Type.Ref('Author')), findingId: Type.String(), status: Type.String(), createTime: Type.String(),
  comment: Type.Optional(Type.String()), justification: Type.Optional(Type.String()),
});
/** Why a dependencyVulnerability finding applies: one entry per matching CPE criterion or OSV package range. */
const VulnerabilityMatch = Type.Object({
  matcher: Type.String({ description: "'cpe' (an NVD or CVE 5 criterion) or 'osv-package'" }),
  record: Type.String({ description: 'The vulnerability record that matched, by its id in its feed' }),
  source: Type.Optional(Type.String({ description: 'Its feed: nvd, cve5 or osv' })),
  scheme: Type.String({ description: 'The version comparison used (generic, dpkg, rpm, semver)' }),
  version: Type.String({ description: "The component's version as compared" }),
  kind: Type.String({ description: 'range, exact or all-versions' }),
  criterion: Type.Optional(Type.String({ description: 'The CPE match string of the criterion' })),
  componentCpe: Type.Optional(Type.String()),
  range: Type.Optional(Type.Object({
    startIncluding: Type.Optional(Type.String()), startExcluding: Type.Optional(Type.String()),
    endIncluding: Type.Optional(Type.String()), endExcluding: Type.Optional(Type.String()),
  })),
  platform: Type.Optional(Type.Array(Type.String(), { description: 'Platform criteria of the configuration ("running on" / "with hardware")' })),
  platformStatus: Type.Optional(Type.String({ description: "matched, or unknown when the image identifies no platform of that kind (another device's platform is no match)" })),
  origin: Type.Optional(Type.String({ description: "alias or name: the criterion's CPE came from a CVE 5 record's vendor and product names" })),
  purl: Type.Optional(Type.String()), ecosystem: Type.Optional(Type.String()), package: Type.Optional(Type.String()),
  events: Type.Optional(Type.Array(Type.Record(Type.String(), Type.String()), { description: 'The OSV range events that matched' })),
  fixedIn: Type.Optional(Type.String({ description: 'The first version outside the range, when the record gives it' })),
});

const FullFinding = Type.Object({
  id: Type.String(), pname: Type.String(), name: Type.String(), findingType: Type.String(), severity: Type.String(), issueStatus: Type.String(),
  title: Type.Optional(Type.String()), description: Type.Optional(Type.String()), fingerprint: Type.String(),
  identifiers: Type.Array(Type.Record(Type.String(), Type.String())),
  cvss: Type.Optional(Type.Record(Type.String(), Type.Object({ baseScore: Type.Number(), vector: Type.String(), version: Type.Optional(Type.String()) }))),
  cvssLatestBaseScore: Type.Optional(Type.Number()),
  epss: Type.Optional(Type.Object({ probability: Type.Number(), percentile: Type.Number() })),
  predicates: Type.Array(Type.Object({
    kev: Type.Boolean(),
    kevDateAdded: Type.Optional(Type.String({ description: 'When CISA added the vulnerability to its Known Exploited Vulnerabilities catalogue (YYYY-MM-DD)' })),
    kevDueDate: Type.Optional(Type.String({ description: 'The remediation due date CISA set for US federal agencies (YYYY-MM-DD)' })),
  })),
  references: Type.Array(Type.Object({ url: Type.String(), description: Type.Optional(Type.String()) })),
  recommendedAction: Type.Optional(Type.String()), knownFixedVersion: Type.Optional(Type.String()),
  matches: Type.Optional(Type.Array(VulnerabilityMatch, { description: 'How a dependencyVulnerability finding was matched' })),
  matchConfidence: Type.Optional(Type.Object({ label: Type.String(), score: Type.Number({ minimum: 0, maximum: 1 }) }, { description: 'How sure a dependencyVulnerability match is' })),
  applicability: Type.Optional(Type.Object({ verdict: Type.String({ description: 'applicable | not-applicable | unknown' }), reason: Type.String(), evidence: Type.Array(Type.String()) }, { description: 'Kernel CVE triage: whether the affected code is built into the image\'s kernel' })),
  component: Type.Optional(Type.Object({ name: Type.String(), version: Type.Optional(Type.String()), cpe: Type.Optional(Type.String()), purl: Type.Optional(Type.String()) })),
  occurrences: Type.Array(Type.Object({ imageId: Type.String(), scanId: Type.String(), path: Type.String(), offset: Type.Optional(Type.Integer()), evidence: Type.Optional(Type.String()) })),
  justification: Type.Optional(Type.String({ description: 'Why the current (rejected) status applies: an OpenVEX justification' })),
  history: Type.Array(Type.Object({
    status: Type.String(), author: Type.Optional(Type.Ref('Author')), createTime: Type.String(), comment: Type.Optional(Type.String()), justification: Type.Optional(Type.String()),
  })),
  productId: Type.String(), imageId: Type.String(), scanId: Type.String(), createTime: Type.String(),
});

/** A finding in full, with its status history. */
function fullFindingOut({ finding: f, history }: FindingWithHistory) {
  return {
    id: f.id, pname: f.pname, name: f.name, findingType: f.findingType, severity: f.severity, issueStatus: f.issueStatus,
    ...(f.justification ? { justification: f.justification } : {}),
    ...(f.title ? { title: f.title } : {}), ...(f.description ? { description: f.description } : {}), fingerprint: f.fingerprint,
    identifiers: f.identifiers ?? [], ...(f.cvss ? { cvss: f.cvss } : {}),
    ...(f.cvssLatestBaseScore !== undefined ? { cvssLatestBaseScore: f.cvssLatestBaseScore } : {}),
    ...(f.epss ? { epss: { probability: f.epss.probability, percentile: f.epss.percentile } } : {}),
    predicates: [{ kev: Boolean(f.isKev), ...(f.kev ? { kevDateAdded: f.kev.dateAdded, ...(f.kev.dueDate ? { kevDueDate: f.kev.dueDate } : {}) } : {}) }], references: f.references ?? [],
    ...(f.recommendedAction ? { recommendedAction: f.recommendedAction } : {}), ...(f.knownFixedVersion ? { knownFixedVersion: f.knownFixedVersion } : {}),
    ...(Array.isArray(f.match?.matches) ? { matches: f.match.matches as Static<typeof VulnerabilityMatch>[] } : {}),
    ...(f.matchConfidence ? { matchConfidence: f.matchConfidence } : {}),
    ...(f.applicability ? { applicability: f.applicability } : {}),
    ...(f.component ? { component: { name: f.component.name, version: f.component.version, cpe: f.component.cpe, purl: f.component.purl } } : {}),
    occurrences: f.occurrences.map((o) => ({ imageId: f.imageId, scanId: f.scanId, path: o.path, offset: o.offset, evidence: o.evidence })),
    history: history.map((h) => ({
      status: h.status, author: h.author, createTime: h.createTime, ...(h.comment ? { comment: h.comment } : {}), ...(h.justification ? { justification: h.justification } : {}),
    })),
    productId: f.productId, imageId: f.imageId, scanId: f.scanId, createTime: f.createTime,
  };
}

export const findingRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { repos, baseUrl }) => {

  app.get('/api/v4/products/:productId/findings/:findingId', {
    config: { permission: 'findings.view' },
    schema: { tags: ['findings'], summary: 'A finding in full, with occurrences and status history', params: Params, response: { 200: FullFinding, ...errorResponses() } },
  }, async (request) => fullFindingOut(await getFinding(repos, principalOf(request), request.params.productId, request.params.findingId)) as never);

  app.post('/api/v4/products/:productId/findings/:findingId/CreateFindingState', {
    config: { permission: 'findings.update' },
    schema: {
      tags: ['findings'], summary: 'Set the issue status (carried forward to the same finding in later images)', params: Params,
      body: Type.Object({ status: Status, comment: Comment, justification: Type.Optional(Justification) }, { additionalProperties: false }),
      response: { 201: StateChange, ...errorResponses(415) },
    },
  }, async (request, reply) => {
    const { finding, change } = await setFindingStatus(repos, principalOf(request), request.params.productId, request.params.findingId, request.body, baseUrl);
    return reply.status(201).send({
      id: change.id, author: change.author, findingId: finding.id, status: change.status, createTime: change.createTime,
      ...(change.comment ? { comment: change.comment } : {}), ...(change.justification ? { justification: change.justification } : {}),
    });
  });

  app.patch('/api/v4/products/:productId/findings/:findingId', {
    config: { permission: 'findings.update' },
    schema: {
      tags: ['findings'], summary: 'Set the issue status (same as CreateFindingState); returns the finding', params: Params,
      body: Type.Object({ issueStatus: Status, comment: Comment, justification: Type.Optional(Justification) }, { additionalProperties: false }),
      response: { 200: FullFinding, ...errorResponses(415) },
    },
  }, async (request) => {
    const { issueStatus: status, ...rest } = request.body;
    const updated = await updateFindingStatus(repos, principalOf(request), request.params.productId, request.params.findingId, { status, ...rest }, baseUrl);
    return fullFindingOut(updated) as never;
  });
};
