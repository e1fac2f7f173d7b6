// One signed delivery attempt of a webhook (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
// `webhook-signature`, signed by the `standardwebhooks` library), over node:http(s) with the SSRF guard at connect
// time. Answers what happened; retrying is the delivery job's business.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { isIP } from 'node:net';
import { guardedLookup, isPrivateAddress, type Resolver } from './webhook-target.js';

export interface DeliveryAttempt {
  ok: boolean;
  status?: number;
  durationMs: number;
  error?: string;
}

const TIMEOUT_MS = 10_000;

/** A new secret in the Standard Webhooks form (`whsec_` + base64 of 32 random bytes). */
export function newWebhookSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`;
}

export function signedHeaders(secret: string, messageId: string, timestamp: Date, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(messageId, timestamp, body),
  };
}

export function sendWebhook(url: string, secret: string, messageId: string, body: string, options: { allowPrivate?: boolean; now?: Date; resolve?: Resolver } = {}): Promise<DeliveryAttempt> {
  const started = Date.now();
  const target = new URL(url);
  const allowPrivate = options.allowPrivate ?? false;
  // A literal address is connected to without a lookup: checked here instead.
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(literal) && isPrivateAddress(literal)) {
    return Promise.resolve({ ok: false, durationMs: 0, error: `refused: ${literal} is inside the network` });
  }
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers = { 'content-type': 'application/json', 'user-agent': 'Firmscope-Webhooks', ...signedHeaders(secret, messageId, options.now ?? new Date(), body) };
  return new Promise((resolve) => {
    const done = (attempt: Omit<DeliveryAttempt, 'durationMs'>) => resolve({ ...attempt, durationMs: Date.now() - started });
    const req = request(target, { method: 'POST', headers, lookup: guardedLookup(allowPrivate, options.resolve) as never, timeout: TIMEOUT_MS }, (res) => {
      res.resume(); // the answer's body is not kept
      res.on('end', () => done({ ok: (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300, status: res.statusCode }));
      res.on('error', (error) => done({ ok: false, status: res.statusCode, error: error.message }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    req.on('error', (error) => done({ ok: false, error: error.message }));
    req.end(body);
  });
}
