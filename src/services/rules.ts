// An organisation's malicious-code rules: the built-in YARA-X rules (rules/*.yar), each of which it can switch
// off (a false positive it has explained), and its own rule sources, checked with the compiler before they are
// stored. A scan loads what is enabled when it starts (scanRules), so a change applies to the scans after it.
import type { Principal } from '../auth/principal.js';
import { builtinRuleCatalog, declaredRules, type BuiltinRuleInfo } from '../engine/malware/rule-catalog.js';
import type { CustomRuleSource } from '../engine/malware/rules.js';
import { isUlid } from '../ids.js';
import type { CustomRule } from '../store/rule.repository.js';
import { ConflictError, InvalidInputError, NotFoundError, UnprocessableError } from '../errors.js';
import type { Repositories } from '../store/repositories.js';

/** Largest custom rule source, in bytes of UTF-8. */
export const MAX_RULE_SOURCE_BYTES = 256 * 1024;

export type RuleView =
  | ({ builtIn: true; enabled: boolean } & BuiltinRuleInfo)
  | ({ builtIn: false; ruleNames: string[]; warnings?: string[] } & CustomRule);

const BUILTIN_PREFIX = 'builtin/';

function builtinView(info: BuiltinRuleInfo, disabled: ReadonlySet<string>): RuleView {
  return { ...info, builtIn: true, enabled: !disabled.has(info.id) };
}

function customView(rule: CustomRule, warnings?: string[]): RuleView {
  return { ...rule, builtIn: false, ruleNames: declaredRules(rule.source).map((r) => r.name), ...(warnings ? { warnings } : {}) };
}

const notFound = (ruleId: string) => new NotFoundError(`rule ${ruleId} not found`, [{ reason: 'notFound', field: 'ruleId' }]);

/** The built-in rule of an id, or undefined when the id is a custom rule's; a malformed id is a 400. */
function builtinOf(ruleId: string): BuiltinRuleInfo | undefined {
  if (ruleId.startsWith(BUILTIN_PREFIX)) {
    const info = builtinRuleCatalog().find((r) => r.id === ruleId);
    if (!info) throw notFound(ruleId);
    return info;
  }
  if (!isUlid(ruleId)) {
    throw new InvalidInputError(`ruleId must be a custom rule's 26-character ULID or a built-in rule's id 'builtin/<file>/<rule>' (URL-encoded in the path), not '${ruleId.slice(0, 100)}'`, [
      { reason: 'invalidArgument', field: 'ruleId' },
    ]);
  }
  return undefined;
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw new InvalidInputError('name must not be blank', [{ reason: 'invalidArgument', field: 'name' }]);
  return trimmed;
}

/**
 * Refuses a source that is too large (400), does not compile or declares no rule (422); returns the warnings. The
 * YARA-X compiler loads at the first rule checked: the API process needs it for nothing else (scans run it in their
 * own threads).
 */
async function checkSource(source: string): Promise<string[]> {
  const bytes = Buffer.byteLength(source, 'utf8');
  if (bytes > MAX_RULE_SOURCE_BYTES) {
    throw new InvalidInputError(`source is ${bytes} bytes; a rule source may have at most ${MAX_RULE_SOURCE_BYTES} bytes (256 KiB): split it into several rules`, [
      { reason: 'tooLarge', field: 'source' },
    ]);
  }
  const { checkRuleSource } = await import('../engine/malware/rules.js');
  const { errors, warnings } = checkRuleSource(source);
  if (errors.length > 0) {
    const summary = `source does not compile (${errors.length} error${errors.length > 1 ? 's' : ''}): ${errors[0]!.split('\n')[0]}`;
    throw new UnprocessableError(summary, errors.map((message) => ({ reason: message, field: 'source' })));
  }
  if (declaredRules(source).length === 0) {
    throw new UnprocessableError('source declares no rule: add at least one `rule name { … condition: … }`', [{ reason: 'noRule', field: 'source' }]);
  }
  return warnings;
}

export async function listRules(repos: Repositories, principal: Principal): Promise<RuleView[]> {
  const disabled = new Set(await repos.rules.disabledBuiltins(principal.orgId));
  const custom = await repos.rules.list(principal.orgId);
  return [...builtinRuleCatalog().map((info) => builtinView(info, disabled)), ...custom.map((rule) => customView(rule))];
}

export async function createRule(repos: Repositories, principal: Principal, input: { name: string; source: string; enabled?: boolean }): Promise<RuleView> {
  const name = checkName(input.name);
  const warnings = await checkSource(input.source);
  const rule = await repos.rules.create({ orgId: principal.orgId, name, source: input.source, enabled: input.enabled ?? true, authorId: principal.userId });
  return customView(rule, warnings);
}

export async function updateRule(
  repos: Repositories, principal: Principal, ruleId: string, patch: { name?: string; source?: string; enabled?: boolean },
): Promise<RuleView> {
  const builtin = builtinOf(ruleId);
  if (builtin) {
    if (patch.name !== undefined || patch.source !== undefined) {
      throw new ConflictError(`built-in rule ${ruleId} cannot be renamed or edited; only "enabled" can be set (add a custom rule for a variant)`, [
        { reason: 'builtInRule', field: patch.name !== undefined ? 'name' : 'source' },
      ]);
    }
    if (patch.enabled !== undefined) await repos.rules.setBuiltinEnabled(principal.orgId, builtin.id, patch.enabled, principal.userId);
    return builtinView(builtin, new Set(await repos.rules.disabledBuiltins(principal.orgId)));
  }
  if (!(await repos.rules.get(principal.orgId, ruleId))) throw notFound(ruleId);
  const name = patch.name === undefined ? undefined : checkName(patch.name);
  const warnings = patch.source === undefined ? undefined : await checkSource(patch.source);
  const updated = await repos.rules.update(principal.orgId, ruleId, { name, source: patch.source, enabled: patch.enabled });
  if (!updated) throw notFound(ruleId);
  return customView(updated, warnings);
}

export async function deleteRule(repos: Repositories, principal: Principal, ruleId: string): Promise<void> {
  if (builtinOf(ruleId)) {
    throw new ConflictError(`built-in rule ${ruleId} cannot be deleted; disable it instead (PATCH it with {"enabled": false})`, [
      { reason: 'builtInRule', field: 'ruleId' },
    ]);
  }
  if (!(await repos.rules.delete(principal.orgId, ruleId))) throw notFound(ruleId);
}

/** What a scan of the organisation runs with: its enabled custom sources and the built-in rules it switched off. */
export async function scanRules(repos: Repositories, orgId: string): Promise<{ rules: CustomRuleSource[]; disabledBuiltinRules: string[] }> {
  const custom = await repos.rules.list(orgId, { enabledOnly: true });
  return {
    rules: custom.map((r) => ({ id: r.id, name: r.name, source: r.source })),
    disabledBuiltinRules: await repos.rules.disabledBuiltins(orgId),
  };
}
