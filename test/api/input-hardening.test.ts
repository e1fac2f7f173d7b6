// Hostile and odd input over HTTP (issue 11), on every database: an invalid enum names its allowed values once,
// grid field names like __proto__ are unknown fields (not a 500), oversized `in` lists are refused, NUL bytes are
// refused wherever a string comes in, and files whose names are outside Latin-1 download with an RFC 6266 header.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../support/databases.js';
import { ADMIN, call, passwordToken, REALM_TOKEN_PATH, startTestServer, type TestServer } from '../support/server.js';

for (const dialect of testDialects()) {
  describe(`input hardening over HTTP [${dialect}]`, () => {
    let t: TestServer;
    let token: string;
    let productId: string;
    let imageId: string;

    beforeAll(async () => {
      t = await startTestServer({ env: { FIRMSCOPE_WORKERS: '0' }, postgres: dialect === 'postgres' });
      token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
      productId = (await call(t.base, token, 'POST', '/api/v4/products', { name: 'p' })).body.id.split('/')[1];
      const form = new FormData();
      form.set('imageName', 'fw');
      form.set('createScan', 'false');
      form.set('file', new Blob([Buffer.from('firmware')]), 'fw.bin');
      imageId = (await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload`, form)).body.id;
    }, 60_000);
    afterAll(async () => t?.close());

    const findingsGrid = (body: unknown) => call(t.base, token, 'POST', '/api/v4/grids/findings:gridList', body);
    const cryptoGrid = (body: unknown) => call(t.base, token, 'POST', '/api/v4/grids/cryptographicAssets:gridList', body);
    const scope = () => ({ field: 'productId', value: productId });

    describe('an invalid enum value', () => {
      it('names the field and its allowed values once', async () => {
        const state = await call(t.base, token, 'POST', `/api/v4/products/${productId}/findings/${imageId}/CreateFindingState`, { status: 'closed' });
        expect(state.status).toBe(400);
        expect(state.body.message).toBe('body.status must be one of: new, inProgress, remediated, rejected, in progress');
        expect(state.body.details).toEqual([{ reason: 'must be one of: new, inProgress, remediated, rejected, in progress', field: 'body.status', service: 'firmscope' }]);
        const csv = await call(t.base, token, 'POST', '/api/v4/grids/findings:gridList?contentType=xml', { filters: [scope()] });
        expect(csv.status).toBe(400);
        expect(csv.body.message).toBe('query.contentType must be one of: json, csv');
        expect(csv.body.details).toHaveLength(1);
      });

      it('names the types a union accepts, or the rule the matching branch broke', async () => {
        const object = await findingsGrid({ filters: [scope(), { field: 'pname', value: { a: 1 } }] });
        expect(object.status).toBe(400);
        expect(object.body.message).toBe('body.filters.1.value must be a string, a number, a boolean or an array');
        expect(object.body.details).toHaveLength(1);
        const nested = await findingsGrid({ filters: [scope(), { field: 'pname', comparator: 'in', value: ['ok', { a: 1 }] }] });
        expect(nested.status).toBe(400);
        expect(nested.body.message).toBe('body.filters.1.value.1 must be a string, a number or a boolean');
        expect(nested.body.details).toHaveLength(1);
      });
    });

    describe('grid field names are looked up as own properties only', () => {
      const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

      it.each(names)('findings grid: %s as a filter or sort field is an unknown field (400)', async (name) => {
        const filter = await findingsGrid({ filters: [scope(), { field: name, value: 'x' }] });
        expect(filter.status).toBe(400);
        expect(filter.body.message).toContain(`unknown field '${name}'`);
        const sort = await findingsGrid({ filters: [scope()], sortBy: { field: name } });
        expect(sort.status).toBe(400);
        expect(sort.body.message).toContain(`unknown field '${name}'`);
        const value = await findingsGrid({ filters: [scope(), { field: 'issueStatus', value: name }] });
        expect(value.status).toBe(400);
        expect(value.body.message).toBe(`filter filters[1].value: '${name}' is not one of new, inProgress, remediated, rejected`);
      });

      it.each(names)('crypto assets grid: %s as a filter or sort field is an unknown field (400)', async (name) => {
        const filter = await cryptoGrid({ filters: [scope(), { field: name, value: 'x' }] });
        expect(filter.status).toBe(400);
        expect(filter.body.message).toContain(`unknown field '${name}'`);
        const sort = await cryptoGrid({ filters: [scope()], sortBy: { field: name } });
        expect(sort.status).toBe(400);
        expect(sort.body.message).toContain(`unknown field '${name}'`);
      });

      it('a JSON body with a __proto__ key is refused, not merged', async () => {
        const r = await call(t.base, token, 'POST', '/api/v4/grids/findings:gridList', `{"filters":[{"field":"productId","value":"${productId}"}],"__proto__":{"x":1}}`, { 'content-type': 'application/json' });
        expect(r.status).toBe(400);
        expect(r.body.message).toMatch(/prototype/);
      });
    });

    describe('list sizes in grid filters are capped', () => {
      const many = (n: number) => Array.from({ length: n }, (_, i) => `C${i}`);

      it('refuses 50,000 values in an `in` filter with 400 on both grids', async () => {
        for (const grid of [findingsGrid, cryptoGrid]) {
          const r = await grid({ filters: [scope(), { field: 'name', comparator: 'in', value: many(50_000) }] });
          expect(r.status).toBe(400);
          expect(r.body.message).toBe('body.filters.1.value must NOT have more than 1000 items');
        }
      });

      it('accepts 1000 values', async () => {
        expect((await findingsGrid({ filters: [scope(), { field: 'pname', comparator: 'in', value: many(1000) }] })).body).toEqual({ total: 0, rows: [] });
        expect((await cryptoGrid({ filters: [scope(), { field: 'name', comparator: 'in', value: many(1000) }] })).body).toEqual({ total: 0, rows: [] });
      });

      it('caps the number of filters and sort keys too', async () => {
        const filters = await findingsGrid({ filters: [scope(), ...Array.from({ length: 20 }, () => ({ field: 'pname', value: 'x' }))] });
        expect(filters.status).toBe(400);
        expect(filters.body.message).toBe('body.filters must NOT have more than 20 items');
        const sorts = await findingsGrid({ filters: [scope()], sortBy: Array.from({ length: 11 }, () => ({ field: 'pname' })) });
        expect(sorts.status).toBe(400);
        expect(sorts.body.message).toBe('body.sortBy must NOT have more than 10 items');
      });
    });

    describe('NUL bytes are refused with 400 naming the field', () => {
      it('in a JSON body, nested too', async () => {
        const product = await call(t.base, token, 'POST', '/api/v4/products', { name: 'a\u0000b' });
        expect(product.status).toBe(400);
        expect(product.body.message).toBe('body.name must not contain a NUL character');
        const grid = await findingsGrid({ filters: [scope(), { field: 'pname', comparator: 'in', value: ['ok', 'x\u0000'] }] });
        expect(grid.status).toBe(400);
        expect(grid.body.details[0]).toMatchObject({ field: 'body.filters.1.value.1' });
        const key = await call(t.base, token, 'POST', '/api/v4/products', '{"name":"p","x\\u0000":1}', { 'content-type': 'application/json' });
        expect(key.status).toBe(400);
        expect(key.body.message).toMatch(/NUL/);
      });

      it('in a query string', async () => {
        const form = new FormData();
        form.set('file', new Blob([Buffer.from('fw')]), 'fw.bin');
        const r = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload?imageName=a%00b&createScan=false`, form);
        expect(r.status).toBe(400);
        expect(r.body.message).toBe('query.imageName must not contain a NUL character');
      });

      it('in a multipart form field', async () => {
        const form = new FormData();
        form.set('imageName', 'a\u0000b');
        form.set('createScan', 'false');
        form.set('file', new Blob([Buffer.from('fw')]), 'fw.bin');
        const r = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload`, form);
        expect(r.status).toBe(400);
        expect(r.body.message).toBe('form.imageName must not contain a NUL character');
      });

      it('in a url-encoded form field', async () => {
        const r = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload`, 'imageName=a%00b&tempFileId=x', { 'content-type': 'application/x-www-form-urlencoded' });
        expect(r.status).toBe(400);
        expect(r.body.message).toBe('body.imageName must not contain a NUL character');
      });

      it('at the token endpoint, in the OAuth error form (as are its validation errors)', async () => {
        const token = (body: string) => fetch(`${t.base}${REALM_TOKEN_PATH}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
        const nul = await token(new URLSearchParams({ grant_type: 'password', client_id: 'FirmscopeClient', username: 'admin\u0000@example.com', password: 'x' }).toString());
        expect(nul.status).toBe(400);
        expect(await nul.json()).toEqual({ error: 'invalid_request', error_description: 'body.username must not contain a NUL character' });
        const twice = await token('grant_type=password&grant_type=client_credentials');
        expect(twice.status).toBe(400);
        expect(await twice.json()).toMatchObject({ error: 'invalid_request' });
      });

      it('in a path parameter', async () => {
        const r = await call(t.base, token, 'GET', `/api/v4/products/${productId.slice(0, 25)}%00`);
        expect(r.status).toBe(400);
        expect(r.body.message).toBe('params.productId must not contain a NUL character');
      });
    });

    describe('attached files whose names are outside Latin-1', () => {
      it.each([['符号.pdb', '__.pdb'], ['🔥 boot 100%.debug', '_ boot 100_.debug'], ["it's (1).pdb", "it's (1).pdb"]])('%s downloads with an RFC 6266 header', async (name, fallback) => {
        const form = new FormData();
        form.set('file', new Blob([Buffer.from('MSF 7.00')]), name);
        const base = `/api/v4/products/${productId}/images/${imageId}/files`;
        const attached = await call(t.base, token, 'POST', base, form);
        expect(attached.status).toBe(201);
        expect(attached.body.filename).toBe(name);
        const download = await fetch(`${t.base}${base}/${attached.body.id}/download`, { headers: { authorization: `Bearer ${token}` } });
        expect(download.status).toBe(200);
        expect(Buffer.from(await download.arrayBuffer()).toString()).toBe('MSF 7.00');
        const header = download.headers.get('content-disposition')!;
        if (fallback === name) {
          expect(header).toBe(`attachment; filename="${name}"`);
        } else {
          const encoded = /^attachment; filename="([^"]*)"; filename\*=UTF-8''([A-Za-z0-9!#$&+.^_`|~%-]+)$/.exec(header);
          expect(encoded?.[1]).toBe(fallback);
          expect(decodeURIComponent(encoded![2]!)).toBe(name);
        }
      });
    });
  });
}
