// The findings of an image as the grid gives them (all pages), the comparison with a baseline image, and the
// gates of a CI job over them.
import type { FirmscopeClient } from '../../client/index.js';
import { data, listImages, type ImageRef } from './api.js';
import { EXIT, failingFindings, gatesAsked, gateSummary, type GateOptions, type GateRow } from './gate.js';

export type FindingRow = GateRow & {
  findingType: string; cvssLatestBaseScore?: number; epssProbability?: number; fingerprint: string;
  comparison?: { status: string };
};

type Filter = { field: string; value: string | string[]; comparator?: string };

export async function gridFindings(client: FirmscopeClient, filters: Filter[]): Promise<FindingRow[]> {
  const rows: FindingRow[] = [];
  for (let num = 1; ; num++) {
    const page = data(await client.POST('/api/v4/grids/findings:gridList', {
      body: { filters, page: { num, size: 100 }, sortBy: [{ field: 'severity', direction: 'descend' }, { field: 'pname', direction: 'ascend' }] },
    }));
    rows.push(...(page.rows as FindingRow[]));
    if (rows.length >= page.total || page.rows.length === 0) return rows;
  }
}

export interface FindingQuery { severity?: string[]; type?: string[] }

function narrow(query: FindingQuery): Filter[] {
  return [
    ...(query.severity?.length ? [{ field: 'severity', value: query.severity, comparator: 'in' }] : []),
    ...(query.type?.length ? [{ field: 'findingType', value: query.type, comparator: 'in' }] : []),
  ];
}

export function imageFindings(client: FirmscopeClient, imageId: string, query: FindingQuery = {}): Promise<FindingRow[]> {
  return gridFindings(client, [{ field: 'imageId', value: imageId, comparator: 'equals' }, ...narrow(query)]);
}

/** The findings of `image` compared with `baselineId`: each row has comparison.status new, resolved or unchanged. */
export function comparedFindings(client: FirmscopeClient, baselineId: string, imageId: string, query: FindingQuery = {}): Promise<FindingRow[]> {
  return gridFindings(client, [
    { field: 'compareLeftImageId', value: baselineId, comparator: 'equals' },
    { field: 'compareRightImageId', value: imageId, comparator: 'equals' },
    ...narrow(query),
  ]);
}

/** The image of the same product created just before `image` whose latest scan completed, if any. */
export async function previousImage(client: FirmscopeClient, image: ImageRef): Promise<{ id: string; name: string } | undefined> {
  const images = await listImages(client, image.productId);
  return images
    .filter((i) => i.id !== image.id && i.createTime < image.createTime && i.latestScan?.latestScanState.type === 'completed')
    .sort((a, b) => b.createTime.localeCompare(a.createTime))[0];
}

/**
 * Applies the gates to an image: prints what failed on standard error and returns the exit code (EXIT).
 * `complete` is whether the image's latest analysis covered the whole image.
 */
export async function runGates(
  client: FirmscopeClient, image: ImageRef, options: GateOptions & { failOnIncomplete?: boolean }, complete: boolean,
): Promise<number> {
  if (gatesAsked(options)) {
    let rows: FindingRow[];
    if (options.failOnNew) {
      const baseline = await previousImage(client, image);
      rows = baseline ? (await comparedFindings(client, baseline.id, image.id)).filter((r) => r.comparison?.status === 'new') : await imageFindings(client, image.id);
      process.stderr.write(`firmscope: new findings are counted against ${baseline ? `the previous image '${baseline.name}'` : 'nothing (no previous image): every finding is new'}\n`);
    } else {
      rows = await imageFindings(client, image.id);
    }
    const failing = failingFindings(rows, options);
    if (failing.length) {
      process.stderr.write(gateSummary(failing, options));
      return EXIT.gateFailed;
    }
  }
  if (options.failOnIncomplete && !complete) {
    process.stderr.write('firmscope: the analysis is incomplete (--fail-on-incomplete)\n');
    return EXIT.incomplete;
  }
  return EXIT.clean;
}

/** Adds the gate options to a command. */
export function gateOptions<T extends { option(flags: string, description: string): T }>(command: T): T {
  return command
    .option('--fail-on <severity>', 'exit 2 when a finding at or above this severity is open: critical, high, medium or low')
    .option('--fail-on-new', 'only count findings that are new against the previous image of the product (by fingerprint); alone: exit 2 on any new finding')
    .option('--fail-on-kev', 'exit 2 when a finding is in the CISA KEV catalogue')
    .option('--fail-on-incomplete', 'exit 3 when part of the image could not be analysed');
}
