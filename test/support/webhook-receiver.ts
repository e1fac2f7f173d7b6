// A webhook receiver on 127.0.0.1 for tests: records every request (body and headers) and answers with the
// status the test sets (a function of the request count, or one status for all).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  body: string;
  headers: Record<string, string>;
  path: string;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** The status to answer the next request with. */
  answer: (request: ReceivedWebhook, index: number) => number;
  /** The received bodies of one event type, parsed. */
  events(type: string): Array<{ type: string; timestamp: string; data: Record<string, any> }>;
  /** Verifies a received request with the standardwebhooks library (throws when it does not verify). */
  verify(secret: string, request: ReceivedWebhook): unknown;
  close(): Promise<void>;
}

const flat = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]));

export async function startReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    received,
    answer: () => 204,
    events: (type) => received.map((r) => JSON.parse(r.body)).filter((b) => b.type === type),
    verify: (secret, request) => new Webhook(secret).verify(request.body, request.headers),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = { body, headers: flat(req.headers), path: req.url ?? '' };
      received.push(request);
      res.statusCode = receiver.answer(request, received.length - 1);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
