// The typed Firmscope API client for TypeScript users, the command line and the web UI. Paths, parameters and
// bodies are typed by src/client/openapi.ts, generated from the service's own OpenAPI document
// (scripts/client-types.ts), so a route change that the client does not follow fails to compile.
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './openapi.js';

export type { components, paths } from './openapi.js';
export type FirmscopeClient = Client<paths>;

export interface FirmscopeClientOptions {
  /** The service's base URL, e.g. `http://localhost:8080` (no `/api/v4`). */
  baseUrl: string;
  /** The bearer token for each request; called per request so that a refreshed token is picked up. */
  token?: () => string | undefined | Promise<string | undefined>;
  /** A fetch implementation (tests, proxies); the global fetch by default. */
  fetch?: typeof globalThis.fetch;
}

export function createFirmscopeClient(options: FirmscopeClientOptions): FirmscopeClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), fetch: options.fetch });
  const token = options.token;
  if (token) {
    client.use({
      async onRequest({ request }) {
        const value = await token();
        if (value) request.headers.set('authorization', `Bearer ${value}`);
        return request;
      },
    });
  }
  return client;
}

/** An API answer that was not a success: the HTTP status and the service's message (`{ message }` bodies). */
export class FirmscopeApiError extends Error {
  constructor(readonly status: number, message: string, readonly body?: unknown) {
    super(message);
    this.name = 'FirmscopeApiError';
  }
}

/**
 * The data of an openapi-fetch answer, or a FirmscopeApiError with the service's message:
 * `const product = expectData(await client.POST('/api/v4/products', { body }))`.
 */
export function expectData<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.error !== undefined || !answer.response.ok) {
    const body = answer.error;
    const message = typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string'
      ? (body as { message: string }).message
      : typeof body === 'string' && body ? body : answer.response.statusText;
    throw new FirmscopeApiError(answer.response.status, `${answer.response.status} ${message}`, body);
  }
  return answer.data as T;
}
