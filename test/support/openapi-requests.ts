// Requests built from the OpenAPI document alone, so a test can call every operation without knowing it: path
// parameters come from fixtures named like them, required query parameters and JSON bodies are the smallest
// values their schemas accept. What cannot be filled is returned as a sentence saying what to add, never skipped.
import { newId } from '../../src/ids.js';

type Schema = Record<string, any>;

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

interface Operation {
  parameters?: Array<{ in: string; name: string; required?: boolean; schema?: Schema }>;
  requestBody?: { content: Record<string, { schema?: Schema }> };
  'x-permission'?: string;
  [key: string]: unknown;
}

export interface DocumentedOperation {
  method: string;
  /** The path template, e.g. /api/v4/products/{productId}. */
  path: string;
  permission?: string;
  pathParameters: string[];
  operation: Operation;
}

export interface BuiltRequest {
  method: string;
  /** The concrete path with its query string. */
  url: string;
  body?: unknown;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

export function documentedOperations(doc: OpenApiDocument): DocumentedOperation[] {
  const operations: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      operations.push({
        method: method.toUpperCase(), path, operation, permission: operation['x-permission'],
        pathParameters: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
      });
    }
  }
  return operations;
}

export const describeOperation = (op: Pick<DocumentedOperation, 'method' | 'path'>): string => `${op.method} ${op.path}`;

/**
 * Values by parameter or field name, for strings whose schema does not say which values it accepts (a free
 * string validated by the handler). Keyed by name, never by route, so a new route using the name is covered.
 */
const KNOWN_VALUES: Record<string, string> = {
  contentType: 'json',
  mode: 'pqc-compliance',
};

/** Builds the sampling functions over one document; `counter` keeps generated strings unique (names, e-mails). */
export function requestBuilder(doc: OpenApiDocument, fixtures: Record<string, string>) {
  let counter = 0;

  const resolve = (schema: Schema): Schema => {
    let current = schema;
    for (let guard = 0; current?.$ref && guard < 20; guard++) {
      const name = String(current.$ref).replace(/^#\/components\/schemas\//, '');
      const target = doc.components?.schemas?.[name];
      if (!target) throw new Error(`unresolvable $ref ${current.$ref}`);
      current = target;
    }
    return current;
  };

  const accepts = (schema: Schema, value: string): boolean =>
    (schema.minLength === undefined || value.length >= schema.minLength)
    && (schema.maxLength === undefined || value.length <= schema.maxLength)
    && (schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(value))
    && (schema.format !== 'email' || /^[^@\s]+@[^@\s]+$/.test(value));

  const sampleString = (schema: Schema, name: string): string => {
    counter += 1;
    const plain = `v${counter}`.padEnd(Math.max(1, schema.minLength ?? 1), 'x');
    const candidates = [fixtures[name], KNOWN_VALUES[name], plain, `user${counter}@example.com`, newId()].filter((c): c is string => c !== undefined);
    const value = candidates.find((c) => accepts(schema, c));
    if (value === undefined) {
      throw new Error(`no value for '${name}' matching ${JSON.stringify(schema)}; add one to KNOWN_VALUES in test/support/openapi-requests.ts or a fixture named '${name}'`);
    }
    return value;
  };

  /** The smallest value `schema` accepts (required properties only; first alternative of a union). */
  const sample = (raw: Schema, name: string): unknown => {
    const schema = resolve(raw);
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
    const alternatives = schema.anyOf ?? schema.oneOf;
    if (Array.isArray(alternatives) && alternatives.length > 0) return sample(alternatives[0], name);
    if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((part: Schema) => sample(part, name)));
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type ?? (schema.properties ? 'object' : undefined);
    switch (type) {
      case 'object': {
        const required: string[] = schema.required ?? [];
        return Object.fromEntries(required.map((key) => [key, sample(schema.properties?.[key] ?? {}, key)]));
      }
      case 'array':
        return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items ?? {}, name));
      case 'integer':
      case 'number':
        return schema.minimum ?? 1;
      case 'boolean':
        return false;
      case 'string':
        return sampleString(schema, name);
      default:
        return fixtures[name] ?? KNOWN_VALUES[name] ?? {};
    }
  };

  /** The request for `op`, or the list of what is missing to build it. */
  const build = (op: DocumentedOperation): BuiltRequest | { missing: string[] } => {
    const missing = op.pathParameters.filter((name) => fixtures[name] === undefined)
      .map((name) => `path parameter {${name}} has no fixture: create the resource in test/support/access-fixtures.ts and add its id as '${name}'`);
    if (missing.length > 0) return { missing };
    try {
      const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(fixtures[name]!));
      const query = new URLSearchParams();
      for (const parameter of op.operation.parameters ?? []) {
        if (parameter.in === 'query' && parameter.required) query.set(parameter.name, String(sample(parameter.schema ?? { type: 'string' }, parameter.name)));
      }
      const json = op.operation.requestBody?.content['application/json']?.schema;
      const body = json ? sample(json, 'body') : undefined;
      return { method: op.method, url: query.size > 0 ? `${path}?${query}` : path, ...(json ? { body } : {}) };
    } catch (error) {
      return { missing: [(error as Error).message] };
    }
  };

  return { build, sample };
}
