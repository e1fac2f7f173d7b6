// Signed webhook attempts to a receiver on 127.0.0.1 that verifies them with the standardwebhooks library, and
// the SSRF guard (after DNS resolution and at connect time).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret, sendWebhook } from '../../src/services/webhook-send.js';
import { assertPublicTarget, isPrivateAddress, type Resolver } from '../../src/services/webhook-target.js';

describe('webhook delivery attempts', () => {
  const secret = newWebhookSecret();
  const received: Array<{ body: string; headers: IncomingMessage['headers'] }> = [];
  let answer = 204;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ body, headers: req.headers });
        res.statusCode = answer;
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('signs each attempt so the receiver verifies it with the library; a tampered payload fails', async () => {
    const body = JSON.stringify({ type: 'scan.completed', data: { scanId: 's1' } });
    const attempt = await sendWebhook(url, secret, 'msg_1', body, { allowPrivate: true });
    expect(attempt).toMatchObject({ ok: true, status: 204 });
    const got = received.at(-1)!;
    const headers = got.headers as Record<string, string>;
    expect(new Webhook(secret).verify(got.body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(got.body.replace('s1', 's2'), headers)).toThrow(/No matching signature/);
    expect(() => new Webhook(newWebhookSecret()).verify(got.body, headers)).toThrow();
  });

  it('reports a 500 answer and an unreachable receiver as failed attempts', async () => {
    answer = 500;
    expect(await sendWebhook(url, secret, 'msg_2', '{}', { allowPrivate: true })).toMatchObject({ ok: false, status: 500 });
    answer = 204;
    const closed = await sendWebhook('http://127.0.0.1:1/hook', secret, 'msg_3', '{}', { allowPrivate: true });
    expect(closed.ok).toBe(false);
    expect(closed.error).toMatch(/ECONNREFUSED/);
  });

  it('refuses inside addresses unless allowed: after DNS resolution, and at connect time', async () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '::1', 'fe80::1', 'fd00::1', '::ffff:10.0.0.1']) expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700::1111']) expect(isPrivateAddress(a), a).toBe(false);
    await expect(assertPublicTarget(url, false)).rejects.toThrow(/inside the network/);
    await expect(assertPublicTarget(url.replace('127.0.0.1', 'localhost'), false)).rejects.toThrow(/resolves to .*inside the network/);
    await expect(assertPublicTarget('ftp://example.com/', false)).rejects.toThrow(/http or https/);
    await expect(assertPublicTarget(url, true)).resolves.toBeUndefined();
    const before = received.length;
    expect((await sendWebhook(url, secret, 'm', '{}', { allowPrivate: false })).error).toMatch(/inside the network/);
    expect((await sendWebhook(url.replace('127.0.0.1', 'localhost'), secret, 'm', '{}', { allowPrivate: false })).error).toMatch(/refused: localhost resolves to/);
    expect(received.length).toBe(before);
  });

  it('refuses at connect time a name that resolved outside when saved and inside when sent (DNS rebinding)', async () => {
    const port = new URL(url).port;
    const rebinding = `http://rebind.example.com:${port}/hook`;
    let asked = 0;
    // first answer public, every later one loopback, as a rebinding DNS server would answer
    const resolve: Resolver = (_host, _options, callback) => {
      asked += 1;
      callback(null, [asked === 1 ? { address: '93.184.216.34', family: 4 } : { address: '127.0.0.1', family: 4 }]);
    };
    await expect(assertPublicTarget(rebinding, false, resolve)).resolves.toBeUndefined();
    const before = received.length;
    const attempt = await sendWebhook(rebinding, secret, 'm_rebind', '{}', { allowPrivate: false, resolve });
    expect(attempt.ok).toBe(false);
    expect(attempt.error).toMatch(/refused: rebind\.example\.com resolves to 127\.0\.0\.1, inside the network/);
    expect(asked).toBe(2);
    expect(received.length).toBe(before);
    // the same connect-time answer is delivered when an operator allows inside targets
    expect(await sendWebhook(rebinding, secret, 'm_rebind2', '{}', { allowPrivate: true, resolve })).toMatchObject({ ok: true, status: 204 });
    expect(received.length).toBe(before + 1);
  });
});
