// Malicious-code rules of the organisation: list the built-in and custom ones, add, change, switch off, delete.
// Built-in rules are addressed by 'builtin/<file>/<rule>' (URL-encoded in the path), custom ones by their ULID.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/authenticate.js';
import { createRule, deleteRule, listRules, MAX_RULE_SOURCE_BYTES, updateRule, type RuleView } from '../services/rules.js';
import type { ApiDeps } from './deps.js';
import { AuthorRef, errorResponses } from './schemas.js';

const RuleSchema = Type.Object(
  {
    id: Type.String({ description: "A custom rule's ULID, or 'builtin/<file>/<rule>' for a built-in rule" }),
    name: Type.String({ description: 'The YARA rule name (built-in) or the name given to the custom source' }),
    builtIn: Type.Boolean(),
    enabled: Type.Boolean({ description: 'Whether the organisation\'s next scans run it' }),
    file: Type.Optional(Type.String({ description: 'Built-in: the rules/ file it is in' })),
    family: Type.Optional(Type.String()),
    severity: Type.Optional(Type.String({ description: 'critical|high|medium|low, from the rule\'s meta' })),
    description: Type.Optional(Type.String()),
    references: Type.Optional(Type.Array(Type.String(), { description: 'Public write-ups the rule is built from' })),
    source: Type.Optional(Type.String({ description: 'Custom: the YARA-X source' })),
    ruleNames: Type.Optional(Type.Array(Type.String(), { description: 'Custom: the rules the source declares' })),
    warnings: Type.Optional(Type.Array(Type.String(), { description: 'Custom, after a change of source: the compiler\'s warnings' })),
    author: Type.Optional(AuthorRef),
    createTime: Type.Optional(Type.String()),
    updateTime: Type.Optional(Type.String()),
  },
  { $id: 'Rule' },
);

const RuleParams = Type.Object({
  ruleId: Type.String({ minLength: 1, maxLength: 300, description: "A custom rule's ULID or a built-in rule's id, e.g. builtin%2Fshell-persistence%2Fnetcat_exec_shell" }),
});
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Source = Type.String({ minLength: 1, description: `YARA-X source, at most ${MAX_RULE_SOURCE_BYTES} bytes, declaring at least one rule; includes are refused` });

function ruleOut(rule: RuleView) {
  if (rule.builtIn) {
    const { id, name, builtIn, enabled, file, family, severity, description, references } = rule;
    return { id, name, builtIn, enabled, file, family, severity, description, references };
  }
  const { id, name, builtIn, enabled, source, ruleNames, warnings, author, createTime, updateTime } = rule;
  return { id, name, builtIn, enabled, source, ruleNames, warnings, author, createTime, updateTime };
}

export const ruleRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { repos }) => {
  app.addSchema(RuleSchema);

  app.get('/api/v4/rules', {
    config: { permission: 'rules.view' },
    schema: {
      tags: ['rules'], summary: 'Malicious-code rules: the built-in ones and the organisation\'s own, each with its enabled flag',
      response: { 200: Type.Object({ rules: Type.Array(Type.Ref('Rule')) }), ...errorResponses() },
    },
  }, async (request) => ({ rules: (await listRules(repos, principalOf(request))).map(ruleOut) }));

  app.post('/api/v4/rules', {
    config: { permission: 'rules.manage' },
    schema: {
      tags: ['rules'], summary: 'Add a custom YARA-X rule source (422 with the compiler\'s messages when it does not compile)',
      body: Type.Object({ name: Name, source: Source, enabled: Type.Optional(Type.Boolean({ default: true })) }, { additionalProperties: false }),
      response: { 201: Type.Ref('Rule'), ...errorResponses(409, 415, 422) },
    },
  }, async (request, reply) => reply.status(201).send(ruleOut(await createRule(repos, principalOf(request), request.body))));

  app.patch('/api/v4/rules/:ruleId', {
    config: { permission: 'rules.manage' },
    schema: {
      tags: ['rules'], summary: 'Enable or disable a rule (built-in or custom); rename or replace a custom rule\'s source',
      params: RuleParams,
      body: Type.Object({ enabled: Type.Optional(Type.Boolean()), name: Type.Optional(Name), source: Type.Optional(Source) }, { additionalProperties: false }),
      response: { 200: Type.Ref('Rule'), ...errorResponses(409, 415, 422) },
    },
  }, async (request) => ruleOut(await updateRule(repos, principalOf(request), request.params.ruleId, request.body ?? {})));

  app.delete('/api/v4/rules/:ruleId', {
    config: { permission: 'rules.manage' },
    schema: {
      tags: ['rules'], summary: 'Delete a custom rule (a built-in one is disabled instead: 409)',
      params: RuleParams,
      response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(409) },
    },
  }, async (request, reply) => {
    await deleteRule(repos, principalOf(request), request.params.ruleId);
    return reply.status(204).send(null);
  });
};
