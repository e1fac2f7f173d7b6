// Finding: description, scores, KEV, references, component and matched range, fixed version, evidence, the status
// workflow (with a VEX justification when rejected, and a comment) and its history.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, expectData } from '../api.js';
import { labelOf } from '../labels.js';
import { Link } from '../router.js';
import { useCan } from '../session.js';
import { ErrorNotice, formatDate, FormError, Kev, Loading, Page, Severity, StateBadge } from '../ui.js';

const STATUSES = ['new', 'inProgress', 'remediated', 'rejected'] as const;
const JUSTIFICATIONS = [
  ['component_not_present', 'Component not present'],
  ['vulnerable_code_not_present', 'Vulnerable code not present'],
  ['vulnerable_code_not_in_execute_path', 'Vulnerable code not in execute path'],
  ['vulnerable_code_cannot_be_controlled_by_adversary', 'Vulnerable code cannot be controlled by an adversary'],
  ['inline_mitigations_already_exist', 'Inline mitigations already exist'],
] as const;

export function FindingPage({ productId, findingId }: { productId: string; findingId: string }) {
  const key = ['finding', findingId];
  const finding = useQuery({ queryKey: key, queryFn: async () => expectData(await api.GET('/api/v4/products/{productId}/findings/{findingId}', { params: { path: { productId, findingId } } })) });
  if (finding.error) return <ErrorNotice error={finding.error} action="Check the address, or go back to the image." />;
  if (!finding.data) return <Loading what="the finding" />;
  const f = finding.data;
  const kev = f.predicates.some((p) => p.kev);
  return (
    <Page title={f.name} crumbs={<><Link href="/">Dashboard</Link> / <Link href={`/products/${productId}`}>Product</Link> / <Link href={`/products/${productId}/images/${f.imageId}`}>Image</Link> / {f.name}</>}>
      <p className="facts"><Severity value={f.severity} /> <Kev value={kev} /> <StateBadge state={f.issueStatus} /> <span className="muted">{labelOf(f.findingType)}</span></p>
      {f.title && <p><strong>{f.title}</strong></p>}
      {f.description && <p className="description">{f.description}</p>}
      <dl className="details">
        {f.cvss && Object.entries(f.cvss).map(([version, c]) => <div key={version}><dt>CVSS {c.version ?? version}</dt><dd>{c.baseScore.toFixed(1)} <code>{c.vector}</code></dd></div>)}
        {f.epss && <div><dt>EPSS</dt><dd>{(f.epss.probability * 100).toFixed(2)}% (percentile {(f.epss.percentile * 100).toFixed(0)})</dd></div>}
        <div><dt>Known exploited (KEV)</dt><dd>{kev ? 'yes' : 'no'}</dd></div>
        {f.component && <div><dt>Affected component</dt><dd>{f.component.name} {f.component.version}{f.component.purl && <><br /><code>{f.component.purl}</code></>}</dd></div>}
        {f.matches?.map((m, i) => (
          <div key={i}><dt>Matched {m.kind}</dt><dd>{m.record} ({m.source ?? m.matcher}) · version {m.version}{m.range && ` in ${[m.range.startIncluding && `≥ ${m.range.startIncluding}`, m.range.startExcluding && `> ${m.range.startExcluding}`, m.range.endIncluding && `≤ ${m.range.endIncluding}`, m.range.endExcluding && `< ${m.range.endExcluding}`].filter(Boolean).join(', ')}`}{m.criterion && <><br /><code>{m.criterion}</code></>}</dd></div>
        ))}
        {f.knownFixedVersion && <div><dt>Fixed in</dt><dd>{f.knownFixedVersion}</dd></div>}
        {f.recommendedAction && <div><dt>Recommended action</dt><dd>{f.recommendedAction}</dd></div>}
        <div><dt>Identifiers</dt><dd>{f.identifiers.map((id) => Object.values(id).join(': ')).join(', ') || '—'}</dd></div>
      </dl>
      {f.occurrences.length > 0 && (
        <section aria-labelledby="evidence-title">
          <h2 id="evidence-title">Evidence</h2>
          <ul>{f.occurrences.map((o, i) => <li key={i}><code>{o.path}</code>{o.offset !== undefined && ` at offset ${o.offset}`}{o.evidence && <> — <code>{o.evidence}</code></>}</li>)}</ul>
        </section>
      )}
      {f.references.length > 0 && (
        <section aria-labelledby="refs-title">
          <h2 id="refs-title">References</h2>
          <ul>{f.references.map((r) => <li key={r.url}><a href={r.url} target="_blank" rel="noreferrer noopener">{r.description ?? r.url}</a></li>)}</ul>
        </section>
      )}
      <StatusForm productId={productId} findingId={findingId} current={f.issueStatus} />
      <section aria-labelledby="history-title">
        <h2 id="history-title">History</h2>
        {f.history.length === 0 ? <p className="muted">The status was never changed.</p> : (
          <ol className="timeline">{f.history.map((h, i) => (
            <li key={i}><StateBadge state={h.status} /> {formatDate(h.createTime)}{h.author && ` by ${h.author.email}`}{h.justification && <> · justification: {h.justification.replace(/_/g, ' ')}</>}{h.comment && <blockquote>{h.comment}</blockquote>}</li>
          ))}</ol>
        )}
      </section>
    </Page>
  );
}

function StatusForm({ productId, findingId, current }: { productId: string; findingId: string; current: string }) {
  const canUpdate = useCan('findings.update');
  const [status, setStatus] = useState(current);
  const [justification, setJustification] = useState('');
  const [comment, setComment] = useState('');
  const queries = useQueryClient();
  const save = useMutation({
    mutationFn: async () => expectData(await api.POST('/api/v4/products/{productId}/findings/{findingId}/CreateFindingState', {
      params: { path: { productId, findingId } },
      body: { status: status as (typeof STATUSES)[number], ...(comment ? { comment } : {}), ...(status === 'rejected' && justification ? { justification: justification as (typeof JUSTIFICATIONS)[number][0] } : {}) },
    })),
    onSuccess: async () => {
      setComment('');
      await queries.invalidateQueries({ queryKey: ['finding', findingId] });
      await queries.invalidateQueries({ queryKey: ['findings-grid'] });
    },
  });
  if (!canUpdate) return null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="status-form" onSubmit={submit} aria-labelledby="status-title">
      <h2 id="status-title">Triage</h2>
      <div className="fields">
        <label>Status <select value={status} onChange={(e) => setStatus(e.target.value)}>{STATUSES.map((s) => <option key={s} value={s}>{labelOf(s)}</option>)}</select></label>
        {status === 'rejected' && (
          <label>Justification <select required value={justification} onChange={(e) => setJustification(e.target.value)}>
            <option value="">choose why it does not apply</option>
            {JUSTIFICATIONS.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
          </select></label>
        )}
      </div>
      <label className="block">Comment <textarea value={comment} onChange={(e) => setComment(e.target.value)} rows={3} maxLength={4000} /></label>
      <button type="submit" className="primary" disabled={save.isPending}>Save status</button>
      {save.isSuccess && <span role="status"> Saved.</span>}
      {save.error && <FormError error={save.error} />}
    </form>
  );
}
