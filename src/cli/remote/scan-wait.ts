// Following a scan until it ends: on a terminal an ora spinner shows its phase and percent (the API reports
// them while it runs); elsewhere one line per phase. A failed or cancelled scan is an error with its reason.
import type { FirmscopeClient } from '../../client/index.js';
import { data, type ImageRef } from './api.js';
import { CliError } from './session.js';

const POLL_MS = 500;

async function latestScan(client: FirmscopeClient, image: ImageRef) {
  const answer = data(await client.GET('/api/v4/products/{productId}/images/{imageId}', {
    params: { path: { productId: image.productId, imageId: image.id }, query: { status: true, withCounts: false } },
  }));
  return { scan: answer.latestScan, analysis: answer.analysis };
}

/** Whether the image's latest completed analysis covered the whole image. */
export async function imageComplete(client: FirmscopeClient, image: ImageRef): Promise<boolean> {
  return (await latestScan(client, image)).analysis?.complete ?? false;
}

/** "30m", "90s", "1h", "500ms", or seconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new CliError(`'${text}' is not a duration (e.g. 30m, 90s, 1h)`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Number(match[1]) * unit;
}

/** Waits for the latest scan of `image` to end; returns whether its analysis is complete. */
export async function waitForScan(client: FirmscopeClient, image: ImageRef, timeoutMs: number): Promise<{ complete: boolean }> {
  const deadline = Date.now() + timeoutMs;
  // A terminal of zero columns (a bare pseudo-terminal) would make the spinner redraw without end: plain lines then.
  const spinner = process.stderr.isTTY && (process.stderr.columns ?? 0) > 0 ? (await import('ora')).default({ text: 'waiting for the scan', stream: process.stderr }).start() : undefined;
  let shown = '';
  try {
    for (;;) {
      const { scan, analysis } = await latestScan(client, image);
      const state = scan?.latestScanState;
      if (state?.type === 'completed') {
        spinner?.succeed(`scan completed${analysis && !analysis.complete ? ' (analysis incomplete)' : ''}`);
        if (!spinner) process.stderr.write('firmscope: scan completed\n');
        return { complete: analysis?.complete ?? false };
      }
      if (state?.type === 'failed' || state?.type === 'cancelled') {
        spinner?.fail(`scan ${state.type}`);
        throw new CliError(`the scan of ${image.name} ${state.type}${state.error ? `: ${state.error.message}` : ''}`);
      }
      const text = state?.progress ? `scanning: ${state.progress.phase} ${state.progress.percent}%` : 'waiting for a worker';
      if (spinner) spinner.text = text;
      else if (text.replace(/ \d+%$/, '') !== shown) process.stderr.write(`firmscope: ${text}\n`);
      shown = text.replace(/ \d+%$/, '');
      if (Date.now() > deadline) {
        spinner?.fail('timed out');
        throw new CliError(`the scan of ${image.name} did not end within the timeout; it goes on on the server (see \`firmscope scans list\`)`);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    if (spinner?.isSpinning) spinner.stop();
  }
}
