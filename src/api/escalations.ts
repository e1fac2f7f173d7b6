// Escalations of a product: findings whose risk rose after the vulnerability database changed (new match, KEV,
// severity, EPSS), listed newest first and acknowledged in bulk. `-` stands for "any finding": the static
// segment wins over the `/findings/:findingId` route, so these paths never meet its ULID validation.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/authenticate.js';
import { acknowledgeEscalations, listEscalations, type Escalation } from '../services/escalations.js';
import type { ApiDeps } from './deps.js';
import { errorResponses, Ulid } from './schemas.js';

const Params = Type.Object({ productId: Ulid('Product id') });
const Reason = Type.Union(['new-vulnerability', 'kev', 'severity', 'epss', 'resolved'].map((r) => Type.Literal(r)), { description: 'Why the risk rose, or \'resolved\': the finding no longer applies (logged acknowledged, details say why)' });
const EscalationSchema = Type.Object(
  {
    id: Type.String(),
    findingId: Type.Optional(Type.String({ description: 'The finding of that image with that fingerprint, if any' })),
    fingerprint: Type.String(),
    imageId: Type.String(),
    reason: Type.String({ description: 'new-vulnerability | kev | severity | epss' }),
    details: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: 'What changed: old and new values' }),
    acknowledged: Type.Boolean(),
    createTime: Type.String(),
    finding: Type.Optional(Type.Object({
      pname: Type.String(), name: Type.String(), severity: Type.String(), isKev: Type.Boolean(),
      epssProbability: Type.Optional(Type.Number()), componentName: Type.Optional(Type.String()), componentVersion: Type.Optional(Type.String()),
    })),
  },
);

const present = (e: Escalation) => {
  const { id: findingId, ...finding } = e.finding ?? { id: undefined };
  return {
    id: e.id, ...(findingId ? { findingId } : {}), fingerprint: e.fingerprint, imageId: e.imageId, reason: e.reason, details: e.details,
    acknowledged: e.acknowledged, createTime: e.createTime, ...(findingId ? { finding } : {}),
  };
};

export const escalationRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { repos }) => {
  app.get('/api/v4/products/:productId/findings/-/escalations', {
    config: { permission: 'findings.view' },
    schema: {
      tags: ['findings'], summary: 'Escalations of the product (findings whose risk rose), newest first', params: Params,
      querystring: Type.Object({
        imageId: Type.Optional(Ulid('Only escalations of this image')),
        acknowledged: Type.Optional(Type.Boolean({ description: 'Only acknowledged (true) or open (false) escalations' })),
        reason: Type.Optional(Reason),
      }),
      response: { 200: Type.Object({ escalations: Type.Array(EscalationSchema) }), ...errorResponses() },
    },
  }, async (request) => {
    const { imageId, acknowledged, reason } = request.query;
    const escalations = await listEscalations(repos, principalOf(request), request.params.productId, { imageId, acknowledged, reason });
    return { escalations: escalations.map(present) } as never;
  });

  app.post('/api/v4/products/:productId/findings/-/escalations::acknowledge', {
    config: { permission: 'findings.update' },
    schema: {
      tags: ['findings'], summary: 'Acknowledge escalations (lowers the images\' newEscalationsCount)', params: Params,
      body: Type.Object({ ids: Type.Array(Ulid('Escalation id'), { minItems: 1, maxItems: 1000 }) }, { additionalProperties: false }),
      response: { 200: Type.Object({ acknowledged: Type.Integer({ description: 'How many were open and are now acknowledged' }) }), ...errorResponses(415) },
    },
  }, async (request) => {
    return { acknowledged: await acknowledgeEscalations(repos, principalOf(request), request.params.productId, request.body.ids) };
  });
};
