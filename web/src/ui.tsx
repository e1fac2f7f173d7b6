// Small shared pieces: page frame, notices, badges, loading and error states, formatting.
import type { ReactNode } from 'react';
import { errorMessage } from './api.js';
import { labelOf } from './labels.js';
import { isSessionError, SessionExpired } from './session.js';

export function Page({ title, actions, children, crumbs }: { title: string; actions?: ReactNode; children: ReactNode; crumbs?: ReactNode }) {
  return (
    <>
      {crumbs && <nav aria-label="Breadcrumb" className="crumbs">{crumbs}</nav>}
      <div className="page-head">
        <h1>{title}</h1>
        {actions && <div className="actions">{actions}</div>}
      </div>
      {children}
    </>
  );
}

export function Loading({ what }: { what: string }) {
  return <p className="muted" role="status" aria-live="polite">Loading {what}…</p>;
}

/** An error and what to do next; a refused token (the session expired) says so, with a sign-in button. */
export function ErrorNotice({ error, action, onSignIn }: { error: unknown; action?: string; onSignIn?: () => void }) {
  if (isSessionError(error)) return <SessionExpired onSignIn={onSignIn} />;
  return (
    <div className="notice error" role="alert">
      <strong>Something went wrong.</strong> {errorMessage(error)}
      {action && <p>{action}</p>}
    </div>
  );
}

/** A form's failed action, inline; a refused token shows the session-expired notice instead. */
export function FormError({ error }: { error: unknown }) {
  if (isSessionError(error)) return <SessionExpired />;
  return <p role="alert" className="error-text">{errorMessage(error)}</p>;
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p><strong>{title}</strong></p>
      {children}
    </div>
  );
}

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'informational'] as const;

export function Severity({ value }: { value: string }) {
  return <span className={`badge sev-${value}`}>{value}</span>;
}

export function Kev({ value }: { value: boolean }) {
  return value ? <span className="badge kev" title="In CISA's Known Exploited Vulnerabilities catalog">KEV</span> : null;
}

export function StateBadge({ state }: { state: string }) {
  return <span className={`badge state-${state}`}>{labelOf(state).replace(/_/g, ' ')}</span>;
}

export const formatDate = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function Tile({ label, value, tone }: { label: string; value: ReactNode; tone?: string }) {
  return (
    <div className={`tile ${tone ? `sev-${tone}` : ''}`}>
      <div className="tile-value">{value}</div>
      <div className="tile-label">{label}</div>
    </div>
  );
}
