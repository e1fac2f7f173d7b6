// The one error handler: domain errors, validation errors and framework errors become the API-NOTES error
// body. 5xx messages are hidden (logged with the request id instead).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ConflictError, DomainError, ForbiddenError, InvalidInputError, NotFoundError, NotReadyError, TooLargeError, UnauthenticatedError,
  InsufficientStorageError, UnprocessableError,
} from '../errors.js';

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
  [UnprocessableError, 422, 'unprocessable'],
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

type ValidationIssue = NonNullable<FastifyError['validation']>[number];

/** 'a, b or c' */
const orList = (items: string[]) => (items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : items.join(''));
const typeWords: Record<string, string> = { string: 'a string', number: 'a number', integer: 'an integer', boolean: 'a boolean', array: 'an array', object: 'an object', null: 'null' };

/**
 * ajv reports a failed union (anyOf: a TypeBox union of literals or of types) as one error per branch and then
 * the anyOf error: "must be equal to constant" five times. Each anyOf error absorbs its branches' errors into one
 * reason: the allowed values of a union of literals; the rule a value of the right type broke (its branch's own
 * error); or else the types the union accepts.
 */
function collapseUnions(issues: ValidationIssue[]): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of issues) {
    if (issue.keyword !== 'anyOf') {
      out.push(issue);
      continue;
    }
    const prefix = `${issue.schemaPath}/`;
    const branches: ValidationIssue[] = [];
    while (out.length > 0 && out.at(-1)!.schemaPath.startsWith(prefix)) branches.unshift(out.pop()!);
    const constants = branches.filter((b) => b.keyword === 'const');
    const typeErrors = branches.filter((b) => b.keyword === 'type');
    const deeper = branches.find((b) => b.keyword !== 'const' && b.keyword !== 'type');
    if (deeper) {
      out.push(deeper);
    } else if (constants.length > 0 && constants.length === branches.length) {
      const values = constants.map((c) => String((c.params as { allowedValue: unknown }).allowedValue));
      out.push({ ...issue, keyword: 'enum', params: { allowedValues: values }, message: `must be one of: ${values.join(', ')}` });
    } else {
      const types = typeErrors.flatMap((b) => String((b.params as { type: string }).type).split(','));
      const words = [...new Set(types)].map((type) => typeWords[type] ?? type);
      if (constants.length > 0) words.unshift(`one of ${constants.map((c) => String((c.params as { allowedValue: unknown }).allowedValue)).join(', ')}`);
      out.push({ ...issue, message: words.length > 0 ? `must be ${orList(words)}` : issue.message });
    }
  }
  return out;
}

function validationBody(error: FastifyError): ErrorResponse {
  const context = error.validationContext ?? 'body';
  const details = collapseUnions(error.validation ?? []).map((v) => {
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
  const message = first ? `${first.field} ${first.reason}` : error.message;
  return { message, details };
}

/**
 * A route that speaks OAuth (the token endpoint) declares RFC 6749's error body, {error, error_description}, for
 * 400. Bad input it did not shape itself (validation, a NUL byte) takes that form there: the API body would fail
 * that route's response schema and turn the 400 into a 500.
 */
function oauthShaped(request: FastifyRequest, body: ErrorResponse): ErrorResponse | { error: string; error_description: string } {
  const response = request.routeOptions.schema?.response as Record<string, { properties?: Record<string, unknown> }> | undefined;
  return response?.[400]?.properties?.error_description ? { error: 'invalid_request', error_description: body.message } : body;
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((caught: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const error = caught as FastifyError;
    // Answered before the request body was read to its end (a failed upload): close the connection after the
    // answer, so the unread rest of the body neither holds the connection nor is read for nothing.
    if (!request.raw.complete) void reply.header('connection', 'close');
    if (error.validation) {
      return reply.status(400).send(oauthShaped(request, validationBody(error)));
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
      return reply.status(status).send(status === 400 ? oauthShaped(request, body) : body);
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
