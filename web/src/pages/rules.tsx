// Malicious-code rules (Administration): the built-in rules, which can be switched off for the organisation, and
// its own YARA-X rules: add (the compiler's messages shown when a source does not compile), switch, delete.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, expectData, FirmscopeApiError, type Schemas } from '../api.js';
import { Link } from '../router.js';
import { useCan } from '../session.js';
import { Empty, ErrorNotice, formatDate, FormError, Loading, Page } from '../ui.js';

type Rule = Schemas['Rule'];

export function RulesPage() {
  const canView = useCan('rules.view');
  const canManage = useCan('rules.manage');
  const rules = useQuery({ queryKey: ['rules'], queryFn: async () => expectData(await api.GET('/api/v4/rules')).rules, enabled: canView });
  if (!canView) return <Empty title="Viewing rules needs the rules.view permission.">Ask an administrator.</Empty>;
  const custom = rules.data?.filter((r) => !r.builtIn) ?? [];
  const builtIn = rules.data?.filter((r) => r.builtIn) ?? [];
  return (
    <Page title="Malicious-code rules" crumbs={<><Link href="/admin">Administration</Link> / Rules</>}>
      <p className="muted">Every scan of your organisation runs the enabled rules. A change applies to the next scans; start a new scan of an image to apply it there.</p>
      {rules.error && <ErrorNotice error={rules.error} />}
      {rules.isLoading && <Loading what="rules" />}
      {canManage && <NewRule />}
      {rules.data && (
        <>
          <section aria-labelledby="custom-title">
            <h2 id="custom-title">Your rules</h2>
            {custom.length === 0 ? <p className="muted">None yet.{canManage ? ' Add one with the form above.' : ''}</p> : <RuleTable rules={custom} canManage={canManage} caption="Your organisation's rules" />}
          </section>
          <section aria-labelledby="builtin-title">
            <h2 id="builtin-title">Built-in rules ({builtIn.length})</h2>
            <RuleTable rules={builtIn} canManage={canManage} caption="Built-in rules" />
          </section>
        </>
      )}
    </Page>
  );
}

function RuleTable({ rules, canManage, caption }: { rules: Rule[]; canManage: boolean; caption: string }) {
  const queries = useQueryClient();
  const done = () => queries.invalidateQueries({ queryKey: ['rules'] });
  const toggle = useMutation({
    mutationFn: async (rule: Rule) => expectData(await api.PATCH('/api/v4/rules/{ruleId}', { params: { path: { ruleId: rule.id } }, body: { enabled: !rule.enabled } })),
    onSuccess: done,
  });
  const remove = useMutation({
    mutationFn: async (rule: Rule) => expectData(await api.DELETE('/api/v4/rules/{ruleId}', { params: { path: { ruleId: rule.id } } })),
    onSuccess: done,
  });
  return (
    <>
      {toggle.error && <FormError error={toggle.error} />}
      {remove.error && <FormError error={remove.error} />}
      <div className="table-wrap" tabIndex={0}><table>
        <caption className="sr-only">{caption}</caption>
        <thead><tr><th scope="col">Rule</th><th scope="col">About</th><th scope="col">State</th>{canManage && <th scope="col">Actions</th>}</tr></thead>
        <tbody>
          {rules.map((rule) => (
            <tr key={rule.id}>
              <th scope="row">{rule.name}{rule.file && <div className="muted small">{rule.file}</div>}</th>
              <td>
                {rule.builtIn ? <>{rule.severity && <span className={`badge sev-${rule.severity}`}>{rule.severity}</span>} {rule.family} {rule.description}</>
                  : <>{rule.ruleNames?.join(', ')}{rule.author && <span className="muted small"> · by {rule.author.email}</span>}{rule.updateTime && <span className="muted small"> · {formatDate(rule.updateTime)}</span>}
                    {rule.warnings && rule.warnings.length > 0 && <div className="small">Compiler warnings: {rule.warnings.join('; ')}</div>}</>}
              </td>
              <td>{rule.enabled ? 'enabled' : 'disabled'}</td>
              {canManage && (
                <td className="actions">
                  <button type="button" disabled={toggle.isPending} onClick={() => toggle.mutate(rule)} aria-label={`${rule.enabled ? 'Disable' : 'Enable'} ${rule.name}`}>{rule.enabled ? 'Disable' : 'Enable'}</button>
                  {!rule.builtIn && <button type="button" disabled={remove.isPending} onClick={() => { if (confirm(`Delete the rule ${rule.name}?`)) remove.mutate(rule); }} aria-label={`Delete ${rule.name}`}>Delete</button>}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table></div>
    </>
  );
}

const EXAMPLE = `rule telnet_backdoor {
  strings:
    $a = "telnetd -l /bin/sh"
  condition:
    $a
}`;

function NewRule() {
  const [name, setName] = useState('');
  const [source, setSource] = useState('');
  const queries = useQueryClient();
  const add = useMutation({
    mutationFn: async () => expectData(await api.POST('/api/v4/rules', { body: { name, source } })),
    onSuccess: async () => {
      setName('');
      setSource('');
      await queries.invalidateQueries({ queryKey: ['rules'] });
    },
  });
  const submit = (event: FormEvent) => { event.preventDefault(); add.mutate(); };
  // A source that does not compile: the compiler's messages, one per error, from the 422 answer's details.
  const compiler = add.error instanceof FirmscopeApiError && add.error.status === 422
    ? ((add.error.body as { details?: Array<{ reason: string }> } | undefined)?.details ?? []).map((d) => d.reason) : [];
  return (
    <form className="stacked-form" onSubmit={submit} aria-labelledby="new-rule-title">
      <h2 id="new-rule-title">Add a rule</h2>
      <label>Name <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} /></label>
      <label>YARA-X source <textarea required rows={8} spellCheck={false} className="code" value={source} placeholder={EXAMPLE} onChange={(e) => setSource(e.target.value)} /></label>
      <button type="submit" className="primary" disabled={add.isPending}>Add rule</button>
      {add.error && <FormError error={add.error} />}
      {compiler.length > 0 && (
        <div className="compiler" aria-label="Compiler messages">
          {compiler.map((message, i) => <pre key={i}>{message}</pre>)}
        </div>
      )}
      {add.isSuccess && <p role="status">Rule {add.data.name} added ({add.data.ruleNames?.join(', ')}).</p>}
    </form>
  );
}
