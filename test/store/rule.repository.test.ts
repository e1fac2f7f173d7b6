// An organisation's custom rules and disabled built-in rules on both dialects: scoped by organisation, names
// unique per organisation (a ConflictError, also on rename), enabled-only listing, idempotent switches.
import { beforeAll, expect, it } from 'vitest';
import { ConflictError } from '../../src/errors.js';
import { createRepositories, type Repositories } from '../../src/store/repositories.js';
import { describeEachDatabase } from '../support/databases.js';

const SOURCE = 'rule r { strings: $a = "RRRR" condition: $a }';

describeEachDatabase('rule repository', (get) => {
  let repos: Repositories;
  let orgA: string;
  let orgB: string;
  let userId: string;

  beforeAll(async () => {
    repos = createRepositories(get().db, get().dialect);
    orgA = (await repos.identities.createOrg('rules-a')).id;
    orgB = (await repos.identities.createOrg('rules-b')).id;
    userId = (await repos.identities.createUser({ orgId: orgA, email: 'rules@a.test', role: 'admin', passwordHash: 'h' })).id;
  });

  it('keeps custom rules per organisation with unique names, and lists the enabled ones for scans', async () => {
    const one = await repos.rules.create({ orgId: orgA, name: 'one', source: SOURCE, enabled: true, authorId: userId });
    expect(one).toMatchObject({ orgId: orgA, name: 'one', source: SOURCE, enabled: true, author: { email: 'rules@a.test' } });
    const two = await repos.rules.create({ orgId: orgA, name: 'two', source: SOURCE, enabled: false, authorId: userId });
    await expect(repos.rules.create({ orgId: orgA, name: 'one', source: SOURCE, enabled: true, authorId: userId })).rejects.toBeInstanceOf(ConflictError);
    await expect(repos.rules.update(orgA, two.id, { name: 'one' })).rejects.toThrow(/already exists/);
    expect((await repos.rules.create({ orgId: orgB, name: 'one', source: SOURCE, enabled: true, authorId: userId })).orgId).toBe(orgB);

    expect((await repos.rules.list(orgA)).map((r) => r.name)).toEqual(['one', 'two']);
    expect((await repos.rules.list(orgA, { enabledOnly: true })).map((r) => r.id)).toEqual([one.id]);
    expect(await repos.rules.get(orgB, one.id)).toBeUndefined();
    expect(await repos.rules.update(orgB, one.id, { enabled: false })).toBeUndefined();
    expect((await repos.rules.get(orgA, one.id))!.enabled).toBe(true);

    const updated = await repos.rules.update(orgA, two.id, { enabled: true, source: `${SOURCE}\n`, name: 'deux' });
    expect(updated).toMatchObject({ name: 'deux', enabled: true, source: `${SOURCE}\n` });
    expect(await repos.rules.delete(orgB, one.id)).toBe(false);
    expect(await repos.rules.delete(orgA, one.id)).toBe(true);
    expect((await repos.rules.list(orgA)).map((r) => r.name)).toEqual(['deux']);
  });

  it('switches built-in rules off and on per organisation, idempotently', async () => {
    const id = 'builtin/shell-persistence/netcat_exec_shell';
    await repos.rules.setBuiltinEnabled(orgA, id, false, userId);
    await repos.rules.setBuiltinEnabled(orgA, id, false, userId);
    expect(await repos.rules.disabledBuiltins(orgA)).toEqual([id]);
    expect(await repos.rules.disabledBuiltins(orgB)).toEqual([]);
    await repos.rules.setBuiltinEnabled(orgA, id, true, userId);
    await repos.rules.setBuiltinEnabled(orgA, id, true, userId);
    expect(await repos.rules.disabledBuiltins(orgA)).toEqual([]);
  });
});
