// The typed API client (src/client, generated from the OpenAPI document) with the signed-in user's token.
import { createFirmscopeClient, expectData, FirmscopeApiError, type components } from '../../src/client/index.js';

export type Schemas = components['schemas'];
export { expectData, FirmscopeApiError };

let currentToken: (() => string | undefined) | undefined;
export function setTokenSource(source: () => string | undefined): void {
  currentToken = source;
}

export const api = createFirmscopeClient({ baseUrl: location.origin, token: () => currentToken?.() });

/** Authenticated fetch of a raw document (reports, CSV) as a Blob. */
export async function fetchBlob(path: string, init: RequestInit = {}): Promise<Blob> {
  const headers = new Headers(init.headers);
  const token = currentToken?.();
  if (token) headers.set('authorization', `Bearer ${token}`);
  const response = await fetch(path, { ...init, headers });
  if (!response.ok) {
    const text = await response.text();
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch { /* plain text */ }
    throw new FirmscopeApiError(response.status, `${response.status} ${message}`);
  }
  return response.blob();
}

/** Saves a Blob as a file through a temporary link. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function errorMessage(error: unknown): string {
  if (error instanceof FirmscopeApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
