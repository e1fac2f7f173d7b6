// What the request log may carry. Query strings hold secrets (pre-signed upload signatures, S3 credentials,
// tokens some clients put in the URL): their values are logged as [redacted]. Headers are never logged, so the
// Authorization header cannot leak (and is redacted besides, should anything log headers). A client's
// x-request-id is kept only when it is a short, safe token; otherwise (log injection, megabyte ids) a new id.
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { newId } from '../ids.js';

export const REDACTED = '[redacted]';

/** Query parameters whose values are secrets, compared case-insensitively. */
const SECRET_PARAMS = new Set([
  'signature', 'sig', 'token', 'access_token', 'refresh_token', 'client_secret', 'password',
  'x-amz-signature', 'x-amz-credential', 'x-amz-security-token',
]);

const decodeKey = (raw: string): string => {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
};

/** The URL with the value of every secret query parameter replaced by [redacted]. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url.slice(q + 1).split('&').map((part) => {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    return SECRET_PARAMS.has(decodeKey(key).toLowerCase()) ? `${key}=${REDACTED}` : part;
  });
  return `${url.slice(0, q)}?${query.join('&')}`;
}

/** Fastify's request serializer minus anything secret: no headers, the URL redacted. Any `req` value is safe. */
function requestSerializer(value: unknown) {
  const request = (value ?? {}) as Partial<FastifyRequest>;
  return {
    method: request.method,
    url: typeof request.url === 'string' ? redactUrl(request.url) : undefined,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** The service's logger for requests: the serializer above, and header secrets redacted wherever they appear. */
export function requestLogger(logger: Logger): Logger {
  return logger.child({}, {
    serializers: { req: requestSerializer },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie', 'authorization'],
      censor: REDACTED,
    },
  });
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's x-request-id when it is a safe token (letters, digits, . _ : -, at most 128), else a new ULID. */
export function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : newId();
}
