// The request log of a real server, captured from its pino destination: secret query parameters (a pre-signed
// upload's signature, tokens, S3 credentials) are [redacted], the Authorization header never appears, and a
// client's x-request-id is kept only when it is a safe token.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl, requestLogger } from '../../src/api/request-logging.js';
import { ULID_PATTERN } from '../../src/ids.js';
import { ADMIN, call, passwordToken, startTestServer, type TestServer } from '../support/server.js';

describe('request logging', () => {
  let t: TestServer;
  let token: string;
  const lines: string[] = [];
  const entries = () => lines.map((l) => JSON.parse(l) as Record<string, any>);

  beforeAll(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    t = await startTestServer({ env: { FIRMSCOPE_WORKERS: '0' }, logger });
    token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
  });
  afterAll(async () => t?.close());

  it('redacts secret query parameters and never logs the Authorization header', async () => {
    const secrets = {
      token: 'tok-S1', sig: 'sig-S2', access_token: 'at-S3', 'X-Amz-Signature': 'amzsig-S4', 'X-Amz-Credential': 'AKIA/cred-S5',
      'X-Amz-Security-Token': 'sts-S6', signature: 'sign-S7', Signature: 'sign-S8',
    };
    const query = new URLSearchParams({ keep: 'visible', ...secrets }).toString();
    const r = await fetch(`${t.base}/healthz?${query}`, { headers: { authorization: 'Bearer bearer-S9' } });
    expect(r.status).toBe(200);
    await call(t.base, token, 'GET', '/api/v4/products');
    expect((await fetch(`${t.base}/no/such/route?access_token=nf-S12`)).status).toBe(404);

    // A real pre-signed upload URL: its signature must not reach the log either.
    const productId = (await call(t.base, token, 'POST', '/api/v4/products', { name: 'p' })).body.id.split('/')[1];
    const { uploadUrl } = (await call(t.base, token, 'GET', `/api/v4/products/${productId}/tempFiles:generateUploadUrl`)).body;
    const signature = new URL(uploadUrl).searchParams.get('signature')!;
    expect((await fetch(uploadUrl, { method: 'PUT', body: Buffer.from('firmware') })).status).toBe(200);

    const log = lines.join('');
    for (const secret of [...Object.values(secrets), 'bearer-S9', 'nf-S12', token, signature]) expect(log).not.toContain(secret.split('/').pop());
    expect(log).not.toMatch(/authorization/i);
    const urls = entries().map((e) => e.req?.url).filter(Boolean) as string[];
    const health = urls.find((u) => u.startsWith('/healthz'))!;
    expect(health).toBe(`/healthz?keep=visible&${Object.keys(secrets).map((k) => `${k}=[redacted]`).join('&')}`);
    expect(urls).toContain(`/uploads/products/${productId}/tempFiles/${new URL(uploadUrl).pathname.split('/').pop()}?expires=${new URL(uploadUrl).searchParams.get('expires')}&signature=[redacted]`);
  });

  it('keeps a safe client x-request-id and replaces an unsafe one', async () => {
    const safe = await fetch(`${t.base}/healthz`, { headers: { 'x-request-id': 'trace-42.a:b_C' } });
    expect(safe.headers.get('x-request-id')).toBe('trace-42.a:b_C');
    expect(entries().some((e) => e.reqId === 'trace-42.a:b_C' && e.req?.url === '/healthz')).toBe(true);
    for (const unsafe of ['has space', 'x'.repeat(129), '<script>', 'a\u00e9b']) {
      const r = await fetch(`${t.base}/healthz`, { headers: { 'x-request-id': unsafe } });
      expect(r.headers.get('x-request-id')).toMatch(new RegExp(ULID_PATTERN));
      expect(lines.join('')).not.toContain(unsafe);
    }
  });

  it('redacts an Authorization header should anything log headers, and leaves other query strings alone', () => {
    const out: string[] = [];
    const log = requestLogger(pino({ level: 'info' }, { write: (line: string) => void out.push(line) }));
    log.info({ headers: { authorization: 'Bearer h-S10', accept: 'json' }, req: { headers: { authorization: 'Basic h-S11' } } }, 'headers');
    expect(out.join('')).not.toMatch(/h-S1[01]/);
    expect(JSON.parse(out[0]!).headers).toEqual({ authorization: '[redacted]', accept: 'json' });
    expect(redactUrl('/a?b=1&c')).toBe('/a?b=1&c');
    expect(redactUrl('/a?x%2Damz%2Dsignature=s&ACCESS_TOKEN=t&token')).toBe('/a?x%2Damz%2Dsignature=[redacted]&ACCESS_TOKEN=[redacted]&token=[redacted]');
  });
});
