// Access control of every operation of the OpenAPI document, generated from the document itself: each /api/v4
// operation publishes its permission as `x-permission`, the roles' permissions come from GET /api/v4/roles, and
// requests are built from the operation's parameters and body schema (test/support/openapi-requests.ts) with the
// ids of real resources (test/support/access-fixtures.ts). For every operation:
//   no token, or a malformed, forged or expired one → 401;
//   a role without the permission → 403 whose body names the permission;
//   another organisation's admin → 404 for the first organisation's resources (a route without resource ids
//   answers without any of them in its body);
//   a role with the permission → neither 401/403 nor a server error.
// A new route is covered without writing anything here; one whose path parameters cannot be filled fails the
// first test with what to add. Operations outside /api/v4 must be the identity provider or the signed upload.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSigningKey } from '../../src/auth/signing-keys.js';
import { newId, ULID_PATTERN } from '../../src/ids.js';
import { CALLER_ROLES, createAccessFixtures, type AccessFixtures } from '../support/access-fixtures.js';
import { testDialects } from '../support/databases.js';
import {
  describeOperation, documentedOperations, requestBuilder, type BuiltRequest, type DocumentedOperation, type OpenApiDocument,
} from '../support/openapi-requests.js';
import { call, startTestServer, type TestServer } from '../support/server.js';

const API_PREFIX = '/api/v4/';
/** Routes that authorise by what the request itself carries (credentials, a signed URL), not by a role. */
const OUTSIDE_ROLE_MODEL = [
  { prefix: '/realms/', what: 'the identity provider (token, discovery, keys, userinfo)' },
  { prefix: '/uploads/', what: 'the signed upload URL' },
];
const NOT_A_TOKEN = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.';
const ULID = new RegExp(ULID_PATTERN);
const ANY_ID = new RegExp(ULID_PATTERN.replace(/^\^|\$$/g, ''), 'g');

type Outcome = { status: number; body: any };

const bodyText = (body: unknown): string => (Buffer.isBuffer(body) ? body.toString('latin1') : JSON.stringify(body));
const brief = (outcome: Outcome): string => `${outcome.status} ${bodyText(outcome.body).slice(0, 200)}`;

for (const dialect of testDialects()) {
  describe(`access control of every documented operation [${dialect}]`, () => {
    let t: TestServer;
    let fixtures: AccessFixtures;
    let operations: DocumentedOperation[];
    let requests: Array<{ op: DocumentedOperation; request: BuiltRequest }>;
    /** The same requests with ids of resources that exist nowhere, by operation. */
    let missingRequests: Map<DocumentedOperation, BuiltRequest>;
    let missingIds: Record<string, string>;
    let unbuildable: string[];
    let rolePermissions: Record<string, string[]>;
    /** Operations outside /api/v4. */
    let outside: DocumentedOperation[] = [];

    beforeAll(async () => {
      t = await startTestServer({ postgres: dialect === 'postgres', env: { FIRMSCOPE_WORKERS: '0' } });
      fixtures = await createAccessFixtures(t);
      const doc = (await call(t.base, undefined, 'GET', '/api/v4/openapi.json')).body as OpenApiDocument;
      operations = documentedOperations(doc).filter((op) => op.path.startsWith(API_PREFIX));
      const roles = await call(t.base, fixtures.tokens.admin, 'GET', '/api/v4/roles');
      rolePermissions = Object.fromEntries((roles.body.roles as Array<{ name: string; permissions: string[] }>).map((r) => [r.name, r.permissions]));
      const { build } = requestBuilder(doc, fixtures.ids);
      missingIds = Object.fromEntries(Object.entries(fixtures.ids).map(([name, id]) => [name, ULID.test(id) ? newId() : `${id}-missing`]));
      const buildMissing = requestBuilder(doc, missingIds).build;
      missingRequests = new Map();
      requests = [];
      unbuildable = [];
      for (const op of operations) {
        const built = build(op);
        if ('missing' in built) unbuildable.push(...built.missing.map((m) => `${describeOperation(op)}: ${m}`));
        else requests.push({ op, request: built });
        const missing = buildMissing(op);
        if (!('missing' in missing)) missingRequests.set(op, missing);
      }
      outside = documentedOperations(doc).filter((op) => !op.path.startsWith(API_PREFIX));
    }, 60_000);
    afterAll(async () => t?.close());

    const send = (token: string | undefined, { request }: { request: BuiltRequest }): Promise<Outcome> =>
      call(t.base, token, request.method, request.url, request.body);

    it('every /api/v4 operation declares a known permission and can be called with real ids', () => {
      expect(operations.length).toBeGreaterThan(20);
      const known = new Set(rolePermissions['admin']);
      const undeclared = operations.filter((op) => !op.permission || !known.has(op.permission))
        .map((op) => `${describeOperation(op)}: x-permission '${op.permission}' is not one of the roles' permissions`);
      expect([...undeclared, ...unbuildable]).toEqual([]);
      // Each role is both allowed and refused somewhere, or the matrix below would test one side only.
      for (const role of ['editor', 'viewer']) {
        expect(operations.some((op) => rolePermissions[role]!.includes(op.permission!))).toBe(true);
        expect(operations.some((op) => !rolePermissions[role]!.includes(op.permission!))).toBe(true);
      }
    });

    it('operations outside /api/v4 are only the identity provider and the signed upload', () => {
      const stray = outside.filter((op) => !OUTSIDE_ROLE_MODEL.some((o) => op.path.startsWith(o.prefix)) || op.permission !== undefined)
        .map((op) => `${describeOperation(op)} is outside ${API_PREFIX} and the role model: move it under ${API_PREFIX} (it then declares a permission)`);
      expect(stray).toEqual([]);
      console.info(`access control: ${outside.length} operations authorise by their own credentials, not by role: ${
        OUTSIDE_ROLE_MODEL.map((o) => `${o.what} (${outside.filter((op) => op.path.startsWith(o.prefix)).length})`).join(', ')}`);
    });

    it('without a token, or with a malformed, forged or expired one, every operation answers 401', async () => {
      const key = await loadSigningKey(t.server.runtime.repos.identities);
      const [header, payload] = fixtures.tokens.admin.split('.') as [string, string];
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const expired = await new SignJWT({ ...claims, exp: Math.floor(Date.now() / 1000) - 60 }).setProtectedHeader({ alg: 'RS256', kid: key.kid }).sign(key.privateKey);
      const forged = `${header}.${payload}.${Buffer.from('not the signature').toString('base64url')}`;
      const problems: string[] = [];
      for (const entry of requests) {
        for (const [label, token] of [['no token', undefined], ['a malformed token', NOT_A_TOKEN], ['a forged token', forged], ['an expired token', expired]] as const) {
          const outcome = await send(token, entry);
          if (outcome.status !== 401) problems.push(`${describeOperation(entry.op)} with ${label}: expected 401, got ${brief(outcome)}`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('a role without the permission gets 403 naming the permission', async () => {
      const problems: string[] = [];
      let checked = 0;
      for (const role of CALLER_ROLES) {
        for (const entry of requests.filter((e) => !rolePermissions[role]!.includes(e.op.permission!))) {
          checked += 1;
          const outcome = await send(fixtures.tokens[role], entry);
          if (outcome.status !== 403 || outcome.body?.permission !== entry.op.permission || !outcome.body?.message) {
            problems.push(`${describeOperation(entry.op)} as ${role}: expected 403 with permission '${entry.op.permission}', got ${brief(outcome)}`);
          }
        }
      }
      expect(problems).toEqual([]);
      expect(checked).toBeGreaterThan(0);
    });

    it("another organisation's admin never reaches the first organisation's resources", async () => {
      const firstOrgIds = Object.values(fixtures.ids);
      const problems: string[] = [];
      for (const entry of requests) {
        const { op } = entry;
        const outcome = await send(fixtures.tokens.otherOrgAdmin, entry);
        const label = `${describeOperation(op)} as another organisation's admin`;
        if (!rolePermissions['admin']!.includes(op.permission!)) {
          if (outcome.status !== 403) problems.push(`${label}: expected 403 (admin lacks '${op.permission}'), got ${brief(outcome)}`);
        } else if (op.pathParameters.length > 0) {
          if (outcome.status !== 404) {
            const hint = outcome.status === 400
              ? ' (the generated request is refused as invalid before the resource is looked up: give the field an enum, pattern or default in the route schema, or a value in KNOWN_VALUES of test/support/openapi-requests.ts)'
              : '';
            problems.push(`${label}: expected 404 for resources of the first organisation, got ${brief(outcome)}${hint}`);
          }
          // …and the same answer as for ids that exist nowhere, so existence does not show.
          const absent = await call(t.base, fixtures.tokens.otherOrgAdmin, op.method, missingRequests.get(op)!.url, missingRequests.get(op)!.body);
          const anonymised = (o: Outcome) => `${o.status} ${[...Object.values(fixtures.ids), ...Object.values(missingIds)]
            .reduce((text, id) => text.replaceAll(id, '<id>'), String(o.body?.message)).replace(ANY_ID, '<id>')}`;
          if (anonymised(outcome) !== anonymised(absent)) {
            problems.push(`${label}: answers '${anonymised(outcome)}' but '${anonymised(absent)}' for ids that exist nowhere`);
          }
        } else if ([401, 403].includes(outcome.status) || outcome.status >= 500) {
          problems.push(`${label}: expected an answer for its own organisation, got ${brief(outcome)}`);
        }
        // Echoing an id the caller sent ("product X not found") tells nothing; naming any other one leaks it.
        const sent = `${entry.request.url} ${JSON.stringify(entry.request.body ?? '')}`;
        const leaked = firstOrgIds.filter((id) => !sent.includes(id) && bodyText(outcome.body).includes(id));
        if (leaked.length > 0) problems.push(`${label}: the answer names the first organisation's ${leaked.join(', ')}`);
      }
      expect(problems).toEqual([]);
    });

    it('a role with the permission is let through (neither 401/403 nor a server error)', async () => {
      const problems: string[] = [];
      let checked = 0;
      for (const role of CALLER_ROLES) {
        for (const entry of requests.filter((e) => rolePermissions[role]!.includes(e.op.permission!))) {
          checked += 1;
          const outcome = await send(fixtures.tokens[role], entry);
          if ([401, 403].includes(outcome.status) || outcome.status >= 500) {
            problems.push(`${describeOperation(entry.op)} as ${role} (has '${entry.op.permission}'): got ${brief(outcome)}`);
          }
        }
      }
      expect(problems).toEqual([]);
      expect(checked).toBeGreaterThan(0);
    });
  });
}
