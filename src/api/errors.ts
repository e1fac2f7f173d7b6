// The one error handler: domain errors, validation errors and framework errors become the API-NOTES error
// body. 5xx messages are hidden (logged with the request id instead).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ConflictError, DomainError, ForbiddenError, InvalidInputError, NotFoundError, NotReadyError, TooLargeError, UnauthenticatedError,
  InsufficientStorageError,
} from '../services/errors.js';

export interface ErrorResponse {
  message: string;
  details: Array<{ reason: string; field?: string; service?: string }>;
  permission?: string;
  resourceName?: string;
}

const SERVICE = 'firmscope';

const DOMAIN_STATUS: Array<[new (...args: never[]) => DomainError, number, string]> = [
  [InvalidInputError, 400, 'invalidArgument'],
  [UnauthenticatedError, 401, 'unauthenticated'],
  [ForbiddenError, 403, 'permissionDenied'],
  [NotFoundError, 404, 'notFound'],
  [ConflictError, 409, 'conflict'],
  [TooLargeError, 413, 'tooLarge'],
  [NotReadyError, 422, 'notReady'],
  [InsufficientStorageError, 507, 'insufficientStorage'],
];

const FRAMEWORK_STATUS: Record<string, [number, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupportedMediaType'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'tooLarge'],
  FST_REQ_FILE_TOO_LARGE: [413, 'tooLarge'],
  FST_PARTS_LIMIT: [413, 'tooLarge'],
  FST_FILES_LIMIT: [413, 'tooLarge'],
  FST_FIELDS_LIMIT: [413, 'tooLarge'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'invalidArgument'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'invalidArgument'],
  FST_INVALID_MULTIPART_CONTENT_TYPE: [415, 'unsupportedMediaType'],
};

export function errorBody(status: number, message: string, reason: string, field?: string): ErrorResponse {
  return { message, details: [{ reason, ...(field ? { field } : {}), service: SERVICE }] };
}

function validationBody(error: FastifyError): ErrorResponse {
  const context = error.validationContext ?? 'body';
  const details = (error.validation ?? []).map((v) => {
    const path = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const params = v.params as Record<string, unknown>;
    let field = path;
    let reason = v.message ?? 'is invalid';
    if (v.keyword === 'additionalProperties') {
      field = [path, String(params.additionalProperty)].filter(Boolean).join('.');
      reason = 'is not a known field';
    } else if (v.keyword === 'required') {
      field = [path, String(params.missingProperty)].filter(Boolean).join('.');
      reason = 'is required';
    } else if (context === 'params' && (v.keyword === 'pattern' || v.keyword === 'minLength' || v.keyword === 'maxLength')) {
      reason = 'must be a 26-character ULID';
    } else if (v.keyword === 'enum') {
      reason = `must be one of: ${(params.allowedValues as unknown[]).join(', ')}`;
    }
    return { reason, field: `${context === 'querystring' ? 'query' : context}${field ? `.${field}` : ''}`, service: SERVICE };
  });
  const first = details[0];
  const message = first ? `${first.field}: ${first.reason}` : error.message;
  return { message, details };
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((caught: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const error = caught as FastifyError;
    // Answered before the request body was read to its end (a failed upload): close the connection after the
    // answer, so the unread rest of the body neither holds the connection nor is read for nothing.
    if (!request.raw.complete) void reply.header('connection', 'close');
    if (error.validation) {
      return reply.status(400).send(validationBody(error));
    }
    if (caught instanceof DomainError) {
      const [, status, reason] = DOMAIN_STATUS.find(([type]) => caught instanceof type) ?? [DomainError, 400, 'invalidArgument'];
      const body: ErrorResponse = {
        message: caught.message,
        details: caught.details.length > 0 ? caught.details.map((d) => ({ ...d, service: SERVICE })) : [{ reason, service: SERVICE }],
      };
      if (caught instanceof ForbiddenError) {
        if (caught.permission) body.permission = caught.permission;
        if (caught.resourceName) body.resourceName = caught.resourceName;
      }
      if (status === 401) void reply.header('www-authenticate', 'Bearer');
      if (status >= 500) request.log.error({ err: caught }, 'request failed');
      return reply.status(status).send(body);
    }
    const framework = error.code ? FRAMEWORK_STATUS[error.code] : undefined;
    if (framework) {
      return reply.status(framework[0]).send(errorBody(framework[0], error.message, framework[1]));
    }
    const status = error.statusCode ?? 500;
    if (status === 429) {
      return reply.status(429).send(errorBody(429, 'too many requests; retry after the time in the retry-after header', 'rateLimited'));
    }
    if (status >= 400 && status < 500) {
      return reply.status(status).send(errorBody(status, error.message, 'invalidArgument'));
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send(errorBody(500, `internal error; quote request id ${request.id} when reporting it`, 'internal'));
  });

  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send(errorBody(404, `no route ${request.method} ${request.url.split('?')[0]}`, 'notFound'));
  });
}
