// Two organisations on a running test server for access-control tests: the first has an admin, an editor and a
// viewer, and one of each resource a route can name (product, image with a finished scan and a finding, debug
// file, temp file, user, client, custom rule, webhook with a delivery); the second has only an admin. `ids` maps path parameter names to
// the first organisation's resources; a route with a parameter missing here cannot be called (and the test says so).
import { addOrg } from '../../src/services/identity-admin.js';
import { ADMIN, call, passwordToken, type TestServer } from './server.js';

export const CALLER_ROLES = ['admin', 'editor', 'viewer'] as const;
export type CallerRole = (typeof CALLER_ROLES)[number];

export interface AccessFixtures {
  tokens: Record<CallerRole | 'otherOrgAdmin', string>;
  /** Path parameter name → id of a resource of the first organisation. */
  ids: Record<string, string>;
}

const PASSWORD = 'access-password-1';

function expectStatus(what: string, response: { status: number; body: unknown }, status: number): void {
  if (response.status !== status) throw new Error(`${what}: expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`);
}

/** A form with one file part, as a browser would send it. */
function fileForm(fields: Record<string, string>, fileName: string, content: string): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  form.set('file', new Blob([Buffer.from(content)]), fileName);
  return form;
}

export async function createAccessFixtures(t: TestServer): Promise<AccessFixtures> {
  const { base } = t;
  const { repos } = t.server.runtime;
  const admin = await passwordToken(base, ADMIN.email, ADMIN.password);

  const users: Record<string, string> = {};
  for (const role of ['editor', 'viewer', 'viewer'] as const) {
    const email = `${role}-${Object.keys(users).length}@example.com`;
    const created = await call(base, admin, 'POST', '/api/v4/users', { email, password: PASSWORD, role });
    expectStatus(`create ${role}`, created, 201);
    users[email] = created.body.id;
  }
  const [editorEmail, viewerEmail, targetEmail] = Object.keys(users) as [string, string, string];
  const client = await call(base, admin, 'POST', '/api/v4/clients', { name: 'ci', role: 'viewer' });
  expectStatus('create client', client, 201);

  const product = await call(base, admin, 'POST', '/api/v4/products', { name: 'access-product' });
  expectStatus('create product', product, 201);
  const productId = String(product.body.id).split('/').pop()!;

  const upload = await call(base, admin, 'POST', `/api/v4/products/${productId}/images:upload`, fileForm({ imageName: 'access-image', createScan: 'false' }, 'fw.bin', 'firmware'));
  expectStatus('upload image', upload, 201);
  const imageId: string = upload.body.id;
  const image = (await repos.images.get(productId, imageId))!;

  // A finished scan with one finding, stored as a worker would store it.
  const scan = await repos.scans.create({ imageId, productId, orgId: image.orgId, authorId: upload.body.author.id });
  await repos.scans.transition(scan.id, ['new'], 'running');
  await repos.results.store({ scanId: scan.id, imageId, productId }, {
    components: [], cryptoAssets: [],
    findings: [{
      fingerprint: 'access-fp-1', findingType: 'dependencyVulnerability', pname: 'CVE-2023-1111', name: 'busybox CVE-2023-1111', severity: 'high',
      identifiers: [{ cve: 'CVE-2023-1111' }], occurrences: [{ path: 'bin/busybox', evidence: 'BusyBox v1.30.1' }],
      component: { ref: 'busybox@1.30.1', name: 'busybox', version: '1.30.1' },
    }],
  });
  await repos.scans.transition(scan.id, ['running'], 'done');
  const grid = await call(base, admin, 'POST', '/api/v4/grids/findings:gridList', { filters: [{ field: 'imageId', value: imageId, comparator: 'equals' }] });
  expectStatus('list findings', grid, 200);
  const findingId: string | undefined = grid.body.rows?.[0]?.id;
  if (!findingId) throw new Error(`the finding stored for the fixture scan is not listed: ${JSON.stringify(grid.body)}`);

  const file = await call(base, admin, 'POST', `/api/v4/products/${productId}/images/${imageId}/files`, fileForm({}, 'fw.pdb', 'debug symbols'));
  expectStatus('attach file', file, 201);
  const tempFile = await call(base, admin, 'GET', `/api/v4/products/${productId}/tempFiles:generateUploadUrl`);
  expectStatus('generate upload URL', tempFile, 200);
  const rule = await call(base, admin, 'POST', '/api/v4/rules', { name: 'access-rule', source: 'rule access_probe { strings: $a = "ACCESS-PROBE" condition: $a }' });
  expectStatus('create rule', rule, 201);

  // stored directly: the fixture server does not allow private targets, and a public URL would need DNS
  const webhook = await repos.webhooks.create({ orgId: image.orgId, url: 'https://hooks.example.com/firmscope', events: ['scan.completed'], description: 'access', secret: 'whsec_YWNjZXNzYWNjZXNzYWNjZXNzYWNjZXNzYWNjZXM=', authorId: null });
  const delivery = await repos.webhooks.addDelivery({ webhookId: webhook.id, eventType: 'scan.completed', payload: '{}' });

  const otherEmail = 'other-admin@example.com';
  await addOrg(repos.identities, { name: 'other-org', adminEmail: otherEmail, adminPassword: PASSWORD });

  return {
    tokens: {
      admin,
      editor: await passwordToken(base, editorEmail, PASSWORD),
      viewer: await passwordToken(base, viewerEmail, PASSWORD),
      otherOrgAdmin: await passwordToken(base, otherEmail, PASSWORD),
    },
    ids: {
      productId, imageId, scanId: scan.id, findingId, fileId: file.body.id, tempFileId: tempFile.body.id,
      userId: users[targetEmail]!, clientId: client.body.clientId, ruleId: rule.body.id,
      webhookId: webhook.id, deliveryId: delivery.id,
    },
  };
}
