// The typed client is exported for TypeScript users as `firmscope/client` (package.json "exports"): the built
// module and its declarations. Checked through Node's package self-reference on the build (`npm run build`).
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/cli-process.js';

const built = existsSync(`${projectRoot}/dist/client/index.d.ts`);
if (!built) console.warn('NOTICE: dist/client is not built; run `npm run build` to test the exported client');

describe.runIf(built)('firmscope/client, as a TypeScript user imports it', () => {
  it('resolves to the built client with its declarations', async () => {
    const exported = JSON.parse(readFileSync(`${projectRoot}/package.json`, 'utf8')).exports['./client'] as { types: string; default: string };
    expect(existsSync(`${projectRoot}/${exported.types}`)).toBe(true);
    const declarations = readFileSync(`${projectRoot}/${exported.types}`, 'utf8');
    expect(declarations).toContain('export declare function createFirmscopeClient(options: FirmscopeClientOptions): FirmscopeClient;');
    expect(readFileSync(`${projectRoot}/dist/client/openapi.d.ts`, 'utf8')).toContain('"/api/v4/products"');

    const { createFirmscopeClient, expectData } = (await import('firmscope/client' as string)) as typeof import('../../src/client/index.js');
    const seen: Request[] = [];
    const client = createFirmscopeClient({
      baseUrl: 'https://firmscope.example.com/', token: () => 't0ken',
      fetch: async (input) => {
        seen.push(input as Request);
        return new Response(JSON.stringify([{ id: 'products/1', name: 'Router' }]), { headers: { 'content-type': 'application/json' } });
      },
    });
    expect(expectData(await client.GET('/api/v4/products'))).toEqual([{ id: 'products/1', name: 'Router' }]);
    expect(seen[0]!.url).toBe('https://firmscope.example.com/api/v4/products');
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer t0ken');
  });
});
