// An organisation's malicious-code rules: its own YARA-X rule sources, and the built-in rules it switched off.
// Every read and write is scoped by organisation; a duplicate name is a ConflictError from the unique index.
import type { Kysely } from 'kysely';
import { authorSelection, toAuthor, type Author } from './author.js';
import { newId, nowIso } from '../ids.js';
import type { Database } from './schema.js';
import { conflictOnDuplicate } from './unique-violation.js';

export interface CustomRule {
  id: string;
  orgId: string;
  name: string;
  source: string;
  enabled: boolean;
  createTime: string;
  updateTime: string;
  author?: Author;
}

const duplicateName = (name: string) => `a rule named "${name}" already exists in this organisation; choose another name`;

export class RuleRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private query() {
    return this.db.selectFrom('rules').leftJoin('users as a', 'a.id', 'rules.author_id').selectAll('rules').select(authorSelection);
  }

  private toRule(r: Database['rules'] & { author_email: string | null; author_create_time: string | null; author_status: string | null }): CustomRule {
    return {
      id: r.id, orgId: r.org_id, name: r.name, source: r.source, enabled: r.enabled === 1,
      createTime: r.create_time, updateTime: r.update_time, author: toAuthor(r),
    };
  }

  async create(input: { orgId: string; name: string; source: string; enabled: boolean; authorId: string }): Promise<CustomRule> {
    const now = nowIso();
    const id = newId();
    await conflictOnDuplicate(duplicateName(input.name), () =>
      this.db.insertInto('rules').values({
        id, org_id: input.orgId, name: input.name, source: input.source, enabled: input.enabled ? 1 : 0,
        author_id: input.authorId, create_time: now, update_time: now,
      }).execute(),
    );
    return (await this.get(input.orgId, id))!;
  }

  async get(orgId: string, id: string): Promise<CustomRule | undefined> {
    const row = await this.query().where('rules.org_id', '=', orgId).where('rules.id', '=', id).executeTakeFirst();
    return row && this.toRule(row);
  }

  /** The organisation's rules by name; only the enabled ones with `enabledOnly`. */
  async list(orgId: string, options: { enabledOnly?: boolean } = {}): Promise<CustomRule[]> {
    let query = this.query().where('rules.org_id', '=', orgId);
    if (options.enabledOnly) query = query.where('rules.enabled', '=', 1);
    const rows = await query.orderBy('rules.name').orderBy('rules.id').execute();
    return rows.map((r) => this.toRule(r));
  }

  async update(orgId: string, id: string, patch: { name?: string; source?: string; enabled?: boolean }): Promise<CustomRule | undefined> {
    const values: Partial<Database['rules']> = { update_time: nowIso() };
    if (patch.name !== undefined) values.name = patch.name;
    if (patch.source !== undefined) values.source = patch.source;
    if (patch.enabled !== undefined) values.enabled = patch.enabled ? 1 : 0;
    await conflictOnDuplicate(duplicateName(patch.name ?? ''), () =>
      this.db.updateTable('rules').set(values).where('org_id', '=', orgId).where('id', '=', id).execute(),
    );
    return this.get(orgId, id);
  }

  /** True when the organisation had the rule. */
  async delete(orgId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('rules').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Ids of the built-in rules the organisation switched off. */
  async disabledBuiltins(orgId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('disabled_builtin_rules').select('rule_id').where('org_id', '=', orgId).orderBy('rule_id').execute();
    return rows.map((r) => r.rule_id);
  }

  /** Switches a built-in rule on or off for the organisation (idempotent). */
  async setBuiltinEnabled(orgId: string, ruleId: string, enabled: boolean, authorId: string): Promise<void> {
    if (enabled) {
      await this.db.deleteFrom('disabled_builtin_rules').where('org_id', '=', orgId).where('rule_id', '=', ruleId).execute();
      return;
    }
    await this.db
      .insertInto('disabled_builtin_rules')
      .values({ org_id: orgId, rule_id: ruleId, author_id: authorId, create_time: nowIso() })
      .onConflict((oc) => oc.columns(['org_id', 'rule_id']).doNothing())
      .execute();
  }
}
