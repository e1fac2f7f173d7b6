// Webhooks (webhooks.manage, admins): the organisation's webhooks with their state (a webhook that kept failing
// is disabled, with the reason), a form to add one whose signing secret is shown once, and per webhook: send a
// test event, rotate the secret (shown once), enable again, delete, and its deliveries (status, response code,
// duration, attempts) with redelivery.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, errorMessage, expectData, type Schemas } from '../api.js';
import { useCan } from '../session.js';
import { Empty, ErrorNotice, formatDate, Loading, Page, StateBadge } from '../ui.js';

type Webhook = Schemas['Webhook'];
type Delivery = Schemas['WebhookDelivery'];

/** The events a webhook can subscribe to (services/webhook-events.ts WEBHOOK_EVENTS). */
const EVENTS = ['image.created', 'scan.completed', 'scan.failed', 'scan.cancelled', 'finding.escalated', 'finding.statusChanged'];
const PAGE_SIZE = 10;

export function WebhooksPage() {
  const canManage = useCan('webhooks.manage');
  const webhooks = useQuery({ queryKey: ['webhooks'], queryFn: async () => expectData(await api.GET('/api/v4/webhooks')).webhooks, enabled: canManage });
  const [selected, setSelected] = useState<string | undefined>();
  const [secret, setSecret] = useState<{ webhook: Webhook; why: string } | undefined>();
  if (!canManage) return <Empty title="Webhooks need the admin role.">Ask an administrator to set up notifications.</Empty>;
  const current = webhooks.data?.find((w) => w.id === selected);
  return (
    <Page title="Webhooks">
      <p className="muted">Signed HTTP notifications (Standard Webhooks) of new images, finished scans, escalated findings and status changes. Failed deliveries are retried for about a day; a webhook whose delivery fails every retry is disabled.</p>
      {secret && <SecretNotice webhook={secret.webhook} why={secret.why} onDone={() => setSecret(undefined)} />}
      <section aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Webhooks</h2>
        {webhooks.error && <ErrorNotice error={webhooks.error} />}
        {webhooks.isLoading && <Loading what="webhooks" />}
        {webhooks.data?.length === 0 && <p className="muted">No webhooks yet.</p>}
        {!!webhooks.data?.length && (
          <div className="table-wrap" tabIndex={0}><table>
            <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th><th scope="col">Since</th><th scope="col">Actions</th></tr></thead>
            <tbody>{webhooks.data.map((w) => (
              <WebhookRow key={w.id} webhook={w} selected={w.id === selected} onSelect={() => setSelected(w.id)} onSecret={(webhook) => setSecret({ webhook, why: 'New secret' })} />
            ))}</tbody>
          </table></div>
        )}
        <NewWebhook onCreated={(webhook) => { setSecret({ webhook, why: 'Webhook created' }); setSelected(webhook.id); }} />
      </section>
      {current && <Deliveries webhook={current} />}
    </Page>
  );
}

function SecretNotice({ webhook, why, onDone }: { webhook: Webhook; why: string; onDone(): void }) {
  return (
    <div className="notice ok" role="status">
      <p>{why} for <strong>{webhook.url}</strong>. Verify each request's signature with this secret.</p>
      <dl className="details">
        <div><dt>Signing secret</dt><dd><code className="secret">{webhook.secret}</code> <button type="button" onClick={() => void navigator.clipboard?.writeText(webhook.secret ?? '')}>Copy</button></dd></div>
      </dl>
      <p>This secret will not be shown again. <button type="button" onClick={onDone}>Done</button></p>
    </div>
  );
}

function WebhookRow({ webhook, selected, onSelect, onSecret }: { webhook: Webhook; selected: boolean; onSelect(): void; onSecret(w: Webhook): void }) {
  const queries = useQueryClient();
  const path = { params: { path: { webhookId: webhook.id } } };
  const refresh = () => Promise.all([queries.invalidateQueries({ queryKey: ['webhooks'] }), queries.invalidateQueries({ queryKey: ['deliveries', webhook.id] })]);
  const test = useMutation({ mutationFn: async () => expectData(await api.POST('/api/v4/webhooks/{webhookId}:test', path)), onSuccess: () => { onSelect(); return refresh(); } });
  const rotate = useMutation({ mutationFn: async () => expectData(await api.POST('/api/v4/webhooks/{webhookId}:rotateSecret', path)), onSuccess: onSecret });
  const enable = useMutation({ mutationFn: async () => expectData(await api.PATCH('/api/v4/webhooks/{webhookId}', { ...path, body: { enabled: true } })), onSuccess: refresh });
  const remove = useMutation({ mutationFn: async () => { await api.DELETE('/api/v4/webhooks/{webhookId}', path); }, onSuccess: refresh });
  const error = test.error ?? rotate.error ?? enable.error ?? remove.error;
  return (
    <tr className={selected ? 'selected' : undefined}>
      <th scope="row"><code>{webhook.url}</code>{webhook.description && <><br /><span className="muted">{webhook.description}</span></>}</th>
      <td>{webhook.events.join(', ')}</td>
      <td>
        <StateBadge state={webhook.enabled ? 'enabled' : 'disabled'} />
        {!webhook.enabled && webhook.disabledReason && <p className="muted">{webhook.disabledReason}</p>}
        {webhook.failureStreak > 0 && <p className="muted">{webhook.failureStreak} failed attempts in a row</p>}
      </td>
      <td>{formatDate(webhook.createTime)}</td>
      <td className="actions">
        <button type="button" onClick={onSelect} aria-pressed={selected}>Deliveries</button>
        {webhook.enabled
          ? <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>Send test</button>
          : <button type="button" onClick={() => enable.mutate()} disabled={enable.isPending}>Enable</button>}
        <button type="button" onClick={() => { if (confirm('Replace the signing secret? Receivers must switch to the new one.')) rotate.mutate(); }} disabled={rotate.isPending}>Rotate secret</button>
        <button type="button" className="danger" onClick={() => { if (confirm(`Delete the webhook to ${webhook.url} and its deliveries?`)) remove.mutate(); }} disabled={remove.isPending}>Delete</button>
        {error && <p role="alert" className="error-text">{errorMessage(error)}</p>}
        {test.isSuccess && <p role="status">Test event queued.</p>}
      </td>
    </tr>
  );
}

function NewWebhook({ onCreated }: { onCreated(w: Webhook): void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>(['scan.completed', 'scan.failed', 'finding.escalated']);
  const queries = useQueryClient();
  const create = useMutation({
    mutationFn: async () => expectData(await api.POST('/api/v4/webhooks', { body: { url, events, description } })),
    onSuccess: async (webhook) => {
      setUrl('');
      setDescription('');
      onCreated(webhook);
      await queries.invalidateQueries({ queryKey: ['webhooks'] });
    },
  });
  const toggle = (event: string) => setEvents((now) => (now.includes(event) ? now.filter((e) => e !== event) : [...now, event]));
  const submit = (e: FormEvent) => { e.preventDefault(); create.mutate(); };
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="new-webhook-title">
      <h3 id="new-webhook-title">Add a webhook</h3>
      <label>URL <input type="url" required maxLength={2000} value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://ci.example.com/firmscope" /></label>
      <label>Description <input maxLength={500} value={description} onChange={(e) => setDescription(e.target.value)} /></label>
      <fieldset style={{ display: 'flex', flexWrap: 'wrap', gap: '0.25rem 1rem', flexBasis: '100%' }}>
        <legend>Events</legend>
        {EVENTS.map((event) => (
          <label key={event} style={{ display: 'inline-flex', flexDirection: 'row', alignItems: 'center', gap: '0.35rem', fontWeight: 'normal' }}>
            <input type="checkbox" checked={events.includes(event)} onChange={() => toggle(event)} /> {event}
          </label>
        ))}
      </fieldset>
      <button type="submit" className="primary" disabled={create.isPending || events.length === 0}>Add webhook</button>
      {create.error && <p role="alert" className="error-text">{errorMessage(create.error)}</p>}
    </form>
  );
}

function Deliveries({ webhook }: { webhook: Webhook }) {
  const [page, setPage] = useState(1);
  const deliveries = useQuery({
    queryKey: ['deliveries', webhook.id, page],
    queryFn: async () => expectData(await api.GET('/api/v4/webhooks/{webhookId}/deliveries', { params: { path: { webhookId: webhook.id }, query: { page, size: PAGE_SIZE } } })),
    refetchInterval: (query) => (query.state.data?.deliveries.some((d) => d.status === 'pending') ? 2000 : false),
  });
  const pages = Math.max(1, Math.ceil((deliveries.data?.total ?? 0) / PAGE_SIZE));
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries to {webhook.url}</h2>
      {deliveries.error && <ErrorNotice error={deliveries.error} />}
      {deliveries.isLoading && <Loading what="deliveries" />}
      {deliveries.data?.total === 0 && <p className="muted">Nothing sent yet. Use “Send test” to try the endpoint.</p>}
      {!!deliveries.data?.deliveries.length && (
        <div className="table-wrap" tabIndex={0}><table>
          <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Response</th><th scope="col">Duration</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
          <tbody>{deliveries.data.deliveries.map((d) => <DeliveryRow key={d.id} webhook={webhook} delivery={d} />)}</tbody>
        </table></div>
      )}
      {pages > 1 && (
        <p className="pager">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>Previous</button> Page {page} of {pages} <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>Next</button>
        </p>
      )}
    </section>
  );
}

function DeliveryRow({ webhook, delivery: d }: { webhook: Webhook; delivery: Delivery }) {
  const queries = useQueryClient();
  const redeliver = useMutation({
    mutationFn: async () => expectData(await api.POST('/api/v4/webhooks/{webhookId}/deliveries/{deliveryId}:redeliver', { params: { path: { webhookId: webhook.id, deliveryId: d.id } } })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['deliveries', webhook.id] }),
  });
  return (
    <tr>
      <th scope="row">{d.eventType}</th>
      <td><StateBadge state={d.status} />{d.error && <p className="muted">{d.error}</p>}{d.nextAttemptTime && <p className="muted">next attempt {formatDate(d.nextAttemptTime)}</p>}</td>
      <td>{d.attempts}</td>
      <td>{d.responseCode ?? '—'}</td>
      <td>{d.durationMs !== undefined ? `${d.durationMs} ms` : '—'}</td>
      <td>{formatDate(d.createTime)}</td>
      <td>
        {d.status !== 'pending' && <button type="button" onClick={() => redeliver.mutate()} disabled={redeliver.isPending || !webhook.enabled} title={webhook.enabled ? undefined : 'Enable the webhook first'}>Redeliver</button>}
        {redeliver.error && <p role="alert" className="error-text">{errorMessage(redeliver.error)}</p>}
      </td>
    </tr>
  );
}
