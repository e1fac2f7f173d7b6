// A real S3-protocol server for tests: s3rver (npm) on 127.0.0.1 with one bucket, behind a small front that
// checks the SigV4 signature of pre-signed (query-string) requests. s3rver itself checks a pre-signed URL's expiry
// and access key but not its signature, so without the front a tampered URL would be accepted. Requests signed in
// the Authorization header (the SDK's own calls) pass through unchecked. The front follows AWS's documented
// algorithm with node:crypto, independently of the SDK that signs the URLs.
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** s3rver's built-in account. */
export const S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
export const S3_REGION = 'us-east-1';

export interface TestS3 {
  /** The front's URL: FIRMSCOPE_S3_ENDPOINT. */
  endpoint: string;
  bucket: string;
  /** Environment for a service or worker on this bucket (FIRMSCOPE_BLOB_URL under `prefix`). */
  env(prefix: string): Record<string, string>;
  /** Pre-signed requests the front refused (bad signature). */
  refused: number;
  close(): Promise<void>;
}

export async function startTestS3(bucket = 'firmscope-test'): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'firmscope-s3rver-'));
  const s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const backend = (await s3rver.run()) as AddressInfo;
  const state = { refused: 0 };
  const front = createServer((request, response) => {
    const url = new URL(request.url ?? '/', `http://${request.headers.host}`);
    if (url.searchParams.has('X-Amz-Signature') && !presignedSignatureValid(request, url)) {
      state.refused++;
      request.resume();
      response.writeHead(403, { 'content-type': 'application/xml' });
      response.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message></Error>');
      return;
    }
    forward(request, response, backend.port);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  return {
    endpoint, bucket,
    env: (prefix) => ({
      FIRMSCOPE_BLOB_URL: `s3://${bucket}/${prefix}`, FIRMSCOPE_S3_ENDPOINT: endpoint, FIRMSCOPE_S3_FORCE_PATH_STYLE: '1',
      AWS_REGION: S3_REGION, AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
    }),
    get refused() {
      return state.refused;
    },
    async close() {
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await s3rver.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

function forward(request: IncomingMessage, response: ServerResponse, port: number): void {
  const upstream = httpRequest({ host: '127.0.0.1', port, method: request.method, path: request.url, headers: request.headers }, (answer) => {
    response.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(response);
  });
  upstream.on('error', () => {
    if (!response.headersSent) response.writeHead(502);
    response.end();
  });
  request.pipe(upstream);
}

const sha256Hex = (data: string): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();
/** RFC 3986 encoding, as SigV4 canonical requests use it. */
function uriEncode(text: string, encodeSlash: boolean): string {
  const encoded = encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return encodeSlash ? encoded : encoded.replace(/%2F/g, '/');
}

/** SigV4 query-string authentication (AWS "Authenticating Requests: Using Query Parameters"). */
function presignedSignatureValid(request: IncomingMessage, url: URL): boolean {
  const params = url.searchParams;
  const [accessKey, date, region, service] = (params.get('X-Amz-Credential') ?? '').split('/');
  if (accessKey !== S3_CREDENTIALS.accessKeyId || !date || !region || !service) return false;
  const signedHeaders = (params.get('X-Amz-SignedHeaders') ?? '').split(';');
  const canonicalQuery = [...params.entries()]
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [uriEncode(name, true), uriEncode(value, true)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`).join('&');
  const headers = signedHeaders.map((name) => `${name}:${String(request.headers[name] ?? '').trim()}\n`).join('');
  const canonicalPath = url.pathname.split('/').map((part) => uriEncode(decodeURIComponent(part), false)).join('/');
  const canonicalRequest = [request.method, canonicalPath, canonicalQuery, headers, signedHeaders.join(';'), 'UNSIGNED-PAYLOAD'].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', params.get('X-Amz-Date'), scope, sha256Hex(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${S3_CREDENTIALS.secretAccessKey}`, date), region), service), 'aws4_request');
  return hmac(key, toSign).toString('hex') === params.get('X-Amz-Signature');
}
