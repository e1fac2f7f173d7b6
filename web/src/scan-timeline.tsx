// A scan's state timeline: every state it went through (queued, running, done / failed / cancelled; a retried
// scan is queued again) with its time and how long the previous state lasted, the phases of the analysis with
// their wall time once it is done, the live phase while it runs, and the reason of a failure.
import { useQuery } from '@tanstack/react-query';
import { api, expectData } from './api.js';
import { ErrorNotice, formatDate, Loading } from './ui.js';

const LABEL: Record<string, string> = { new: 'queued', running: 'running', done: 'done', failed: 'failed', cancelled: 'cancelled' };
const FINAL = new Set(['done', 'failed', 'cancelled']);

export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function ScanTimeline({ productId, imageId, scanId, phases, progress }: {
  productId: string; imageId: string; scanId: string;
  /** Wall time per phase (summary.phases), once the scan is done. */
  phases?: Record<string, number>;
  /** The running scan's current phase. */
  progress?: { phase: string; percent: number };
}) {
  const states = useQuery({
    queryKey: ['scan-states', scanId],
    queryFn: async () => expectData(await api.GET('/api/v4/products/{productId}/images/{imageId}/scans/{scanId}/states', { params: { path: { productId, imageId, scanId } } })).states,
    refetchInterval: (query) => (query.state.data && FINAL.has(query.state.data.at(-1)?.type ?? '') ? false : 2000),
  });
  if (states.error) return <ErrorNotice error={states.error} />;
  if (!states.data) return <Loading what="the scan's states" />;
  const list = states.data;
  return (
    <ol className="state-timeline" aria-label="State timeline">
      {list.map((state, i) => {
        const next = list[i + 1];
        const lasted = next ? Date.parse(next.createTime) - Date.parse(state.createTime) : undefined;
        return (
          <li key={state.id} data-state={state.type}>
            <strong>{LABEL[state.type] ?? state.type}</strong> <time dateTime={state.createTime}>{formatDate(state.createTime)}</time>
            {lasted !== undefined && <span className="muted"> · {formatMs(lasted)}</span>}
            {state.message && state.type !== 'new' && <span className={state.type === 'failed' ? 'error-text' : 'muted'}> · {state.message}</span>}
            {state.type === 'running' && !next && progress && <span> · now: {progress.phase} ({progress.percent}%)</span>}
            {state.type === 'running' && next?.type === 'done' && phases && Object.keys(phases).length > 0 && (
              <ol aria-label="Analysis phases">
                {Object.entries(phases).map(([phase, ms]) => <li key={phase}>{phase} <span className="muted">{formatMs(ms)}</span></li>)}
              </ol>
            )}
          </li>
        );
      })}
    </ol>
  );
}
