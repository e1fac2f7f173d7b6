// Webhooks of the organisation (admins): register, list, read, change, delete; rotate the secret; send a test
// event; page through deliveries and redeliver one. The secret is in the answers of create and rotateSecret only.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/authenticate.js';
import {
  createWebhook, deleteWebhook, listDeliveries, listWebhooks, redeliver, requireWebhook, rotateSecret, sendTestEvent, updateWebhook,
  type Webhook, type WebhookDelivery,
} from '../services/webhooks.js';
import { TEST_EVENT, WEBHOOK_EVENTS } from '../services/webhook-events.js';
import type { ApiDeps } from './deps.js';
import { errorResponses, Ulid } from './schemas.js';

const WebhookSchema = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    events: Type.Array(Type.String()),
    description: Type.String(),
    enabled: Type.Boolean({ description: 'A disabled webhook receives no new deliveries' }),
    disabledReason: Type.Optional(Type.String({ description: 'Why it was disabled (automatically after a delivery failed every retry, or by an admin)' })),
    failureStreak: Type.Integer({ description: 'Failed attempts in a row; 0 after a success' }),
    secret: Type.Optional(Type.String({ description: 'The signing secret (whsec_…): only in the answers of create and rotateSecret' })),
    createTime: Type.String(),
    updateTime: Type.String(),
  },
  { $id: 'Webhook' },
);

const DeliverySchema = Type.Object(
  {
    id: Type.String(),
    webhookId: Type.String(),
    messageId: Type.String({ description: 'The webhook-id header; a redelivery keeps the original\'s' }),
    eventType: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
    attempts: Type.Integer(),
    responseCode: Type.Optional(Type.Integer({ description: 'HTTP status of the last attempt\'s answer' })),
    durationMs: Type.Optional(Type.Integer({ description: 'Duration of the last attempt' })),
    error: Type.Optional(Type.String({ description: 'Why the last attempt failed' })),
    nextAttemptTime: Type.Optional(Type.String({ description: 'When the next attempt is due (pending only)' })),
    payload: Type.Unknown({ description: 'The JSON body sent' }),
    createTime: Type.String(),
    updateTime: Type.String(),
  },
  { $id: 'WebhookDelivery' },
);

const Event = Type.String({ description: `One of: ${WEBHOOK_EVENTS.join(', ')}` });
const Url = Type.String({ minLength: 1, maxLength: 2000, description: 'http(s) URL; loopback, link-local and private addresses are refused unless FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE=1' });
const Description = Type.String({ maxLength: 500 });
const WebhookParams = Type.Object({ webhookId: Ulid('Webhook id') });
const DeliveryParams = Type.Object({ webhookId: Ulid('Webhook id'), deliveryId: Ulid('Delivery id') });
// A colon after a path parameter needs a pattern on the parameter (find-my-way); the schema then checks it is a ULID.
const ID = '([0-9A-Za-z]+)';

function webhookOut(webhook: Webhook, withSecret = false) {
  const { id, url, events, description, enabled, disabledReason, failureStreak, createTime, updateTime } = webhook;
  return {
    id, url, events, description, enabled, failureStreak, createTime, updateTime,
    ...(disabledReason && !enabled ? { disabledReason } : {}), ...(withSecret ? { secret: webhook.secret } : {}),
  };
}

function deliveryOut(d: WebhookDelivery) {
  return {
    id: d.id, webhookId: d.webhookId, messageId: d.messageId, eventType: d.eventType, status: d.status, attempts: d.attempts,
    ...(d.lastStatusCode !== null ? { responseCode: d.lastStatusCode } : {}), ...(d.lastDurationMs !== null ? { durationMs: d.lastDurationMs } : {}),
    ...(d.lastError ? { error: d.lastError } : {}), ...(d.status === 'pending' && d.nextAttemptTime ? { nextAttemptTime: d.nextAttemptTime } : {}),
    payload: JSON.parse(d.payload) as unknown, createTime: d.createTime, updateTime: d.updateTime,
  };
}

export const webhookRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { repos, baseUrl, webhookAllowPrivate }) => {
  app.addSchema(WebhookSchema);
  app.addSchema(DeliverySchema);
  const config = { permission: 'webhooks.manage' } as const;
  const tags = ['webhooks'];

  app.post('/api/v4/webhooks', {
    config,
    schema: {
      tags, summary: `Register a webhook for some events (${WEBHOOK_EVENTS.join(', ')}); the answer holds its signing secret, shown this once`,
      body: Type.Object({ url: Url, events: Type.Array(Event, { minItems: 1, maxItems: 20 }), description: Type.Optional(Description) }, { additionalProperties: false }),
      response: { 201: Type.Ref('Webhook'), ...errorResponses(415, 422) },
    },
  }, async (request, reply) => reply.status(201).send(webhookOut(await createWebhook(repos, principalOf(request), request.body, webhookAllowPrivate), true)));

  app.get('/api/v4/webhooks', {
    config,
    schema: { tags, summary: 'Webhooks of the organisation (without secrets)', response: { 200: Type.Object({ webhooks: Type.Array(Type.Ref('Webhook')) }), ...errorResponses() } },
  }, async (request) => ({ webhooks: (await listWebhooks(repos, principalOf(request))).map((w) => webhookOut(w)) }));

  app.get('/api/v4/webhooks/:webhookId', {
    config,
    schema: { tags, summary: 'One webhook; a disabled one says why', params: WebhookParams, response: { 200: Type.Ref('Webhook'), ...errorResponses() } },
  }, async (request) => webhookOut(await requireWebhook(repos, principalOf(request), request.params.webhookId)));

  app.patch('/api/v4/webhooks/:webhookId', {
    config,
    schema: {
      tags, summary: 'Change the URL, events or description; enabled: true turns a disabled webhook on again (its failure streak restarts)',
      params: WebhookParams,
      body: Type.Object({ url: Type.Optional(Url), events: Type.Optional(Type.Array(Event, { minItems: 1, maxItems: 20 })), description: Type.Optional(Description), enabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
      response: { 200: Type.Ref('Webhook'), ...errorResponses(415, 422) },
    },
  }, async (request) => webhookOut(await updateWebhook(repos, principalOf(request), request.params.webhookId, request.body ?? {}, webhookAllowPrivate)));

  app.delete('/api/v4/webhooks/:webhookId', {
    config,
    schema: { tags, summary: 'Delete a webhook and its deliveries', params: WebhookParams, response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses() } },
  }, async (request, reply) => {
    await deleteWebhook(repos, principalOf(request), request.params.webhookId);
    return reply.status(204).send(null);
  });

  app.post(`/api/v4/webhooks/:webhookId${ID}::rotateSecret`, {
    config,
    schema: {
      tags, summary: 'Replace the signing secret; the answer holds the new one, shown this once (later attempts, pending ones too, are signed with it)',
      params: WebhookParams, response: { 200: Type.Ref('Webhook'), ...errorResponses() },
    },
  }, async (request) => webhookOut(await rotateSecret(repos, principalOf(request), request.params.webhookId), true));

  app.post(`/api/v4/webhooks/:webhookId${ID}::test`, {
    config,
    schema: {
      tags, summary: `Send a ${TEST_EVENT} event to the webhook as a delivery (409 when the webhook is disabled)`,
      params: WebhookParams, response: { 202: Type.Ref('WebhookDelivery'), ...errorResponses(409) },
    },
  }, async (request, reply) => reply.status(202).send(deliveryOut(await sendTestEvent(repos, principalOf(request), request.params.webhookId, baseUrl))));

  app.get('/api/v4/webhooks/:webhookId/deliveries', {
    config,
    schema: {
      tags, summary: 'Deliveries of the webhook, newest first, a page at a time: status, last response code and duration, attempts',
      params: WebhookParams,
      querystring: Type.Object({
        page: Type.Optional(Type.Integer({ minimum: 0, description: 'Page number, 1-based (0 means 1)' })),
        size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Rows per page, default 10, at most 100' })),
        status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')])),
      }, { additionalProperties: false }),
      response: { 200: Type.Object({ total: Type.Integer(), page: Type.Integer(), size: Type.Integer(), deliveries: Type.Array(Type.Ref('WebhookDelivery')) }), ...errorResponses() },
    },
  }, async (request) => {
    const { page, size, status } = request.query;
    const found = await listDeliveries(repos, principalOf(request), request.params.webhookId, { num: page, size, status });
    return { total: found.total, page: found.num, size: found.size, deliveries: found.rows.map(deliveryOut) };
  });

  app.post(`/api/v4/webhooks/:webhookId/deliveries/:deliveryId${ID}::redeliver`, {
    config,
    schema: {
      tags, summary: 'Send a finished delivery again, as a new delivery with the same body and webhook-id (409 while it is pending or the webhook is disabled)',
      params: DeliveryParams, response: { 202: Type.Ref('WebhookDelivery'), ...errorResponses(409) },
    },
  }, async (request, reply) => reply.status(202).send(deliveryOut(await redeliver(repos, principalOf(request), request.params.webhookId, request.params.deliveryId))));
};
