// Scans of an image and the history of their states. State moves are conditional updates, so a move
// that raced with another one (a worker finishing while a user cancels) is refused instead of overwritten.
// A finished scan also keeps its summary and its problems (one row each, paged and filtered by level).
import type { Kysely } from 'kysely';
import type { Problem, ProblemLevel, ScanSummary } from '../engine/types.js';
import { authorSelection, toAuthor, type Author } from './author.js';
import { newId, nowIso } from '../ids.js';
import type { Database, ScanStateType } from './schema.js';

export interface Scan {
  id: string;
  imageId: string;
  productId: string;
  orgId: string;
  state: ScanStateType;
  stateId: string;
  stateTime: string;
  error: string | null;
  progress?: { phase: string; percent: number };
  engineVersion: string | null;
  resultBlobKey: string | null;
  createTime: string;
  author?: Author;
  /** Set once the scan's result is stored (absent for scans finished before summaries existed). */
  summary?: ScanSummary;
}

export interface StoredProblem {
  level: ProblemLevel;
  kind: Problem['kind'];
  source: string;
  path?: string;
  offset?: number;
  message: string;
}

/** Problems are written this many rows per statement. */
const PROBLEM_BATCH = 500;

export interface ScanStateRecord {
  id: string;
  type: ScanStateType;
  authorId: string | null;
  message: string | null;
  createTime: string;
}

type Row = Database['scans'] & { author_email: string | null; author_create_time: string | null; author_status: string | null };

const toScan = (r: Row): Scan => ({
  id: r.id, imageId: r.image_id, productId: r.product_id, orgId: r.org_id, state: r.state, stateId: r.state_id,
  stateTime: r.state_time, error: r.error,
  progress: r.progress_phase !== null && r.progress_percent !== null ? { phase: r.progress_phase, percent: Number(r.progress_percent) } : undefined,
  engineVersion: r.engine_version, resultBlobKey: r.result_blob_key, createTime: r.create_time, author: toAuthor(r),
  ...(r.summary !== null ? { summary: JSON.parse(r.summary) as ScanSummary } : {}),
});

export class ScanRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private scans() {
    return this.db.selectFrom('scans').leftJoin('users as a', 'a.id', 'scans.author_id').selectAll('scans').select(authorSelection);
  }

  /** Scans by state (for /metrics). */
  async countByState(): Promise<Array<{ state: ScanStateType; count: number }>> {
    const rows = await this.db.selectFrom('scans').select(['state', (eb) => eb.fn.countAll().as('count')]).groupBy('state').execute();
    return rows.map((r) => ({ state: r.state, count: Number(r.count) }));
  }

  async create(input: { imageId: string; productId: string; orgId: string; authorId: string }): Promise<Scan> {
    const now = nowIso();
    const id = newId();
    const stateId = newId();
    await this.db
      .insertInto('scans')
      .values({
        id, image_id: input.imageId, product_id: input.productId, org_id: input.orgId, author_id: input.authorId, state: 'new',
        state_id: stateId, state_time: now, error: null, progress_phase: null, progress_percent: null, engine_version: null,
        result_blob_key: null, create_time: now, summary: null,
      })
      .execute();
    await this.db.insertInto('scan_states').values({ id: stateId, scan_id: id, type: 'new', author_id: input.authorId, message: null, create_time: now }).execute();
    return (await this.getById(id))!;
  }

  async get(imageId: string, id: string): Promise<Scan | undefined> {
    const row = await this.scans().where('scans.image_id', '=', imageId).where('scans.id', '=', id).executeTakeFirst();
    return row && toScan(row);
  }

  async getById(id: string): Promise<Scan | undefined> {
    const row = await this.scans().where('scans.id', '=', id).executeTakeFirst();
    return row && toScan(row);
  }

  async listByImage(imageId: string): Promise<Scan[]> {
    return (await this.listByImages([imageId])).get(imageId)!;
  }

  /** The scans of several images in one query, newest first within each image. */
  async listByImages(imageIds: string[]): Promise<Map<string, Scan[]>> {
    const out = new Map<string, Scan[]>(imageIds.map((id) => [id, []]));
    if (imageIds.length === 0) return out;
    const rows = await this.scans().where('scans.image_id', 'in', imageIds).orderBy('scans.create_time', 'desc').orderBy('scans.id', 'desc').execute();
    for (const row of rows) out.get(row.image_id)?.push(toScan(row));
    return out;
  }

  /** The newest scan of an image in one of the given states (the one whose results the image shows). */
  async latest(imageId: string, states?: ScanStateType[]): Promise<Scan | undefined> {
    let query = this.scans().where('scans.image_id', '=', imageId);
    if (states) query = query.where('scans.state', 'in', states);
    const row = await query.orderBy('scans.create_time', 'desc').orderBy('scans.id', 'desc').executeTakeFirst();
    return row && toScan(row);
  }

  /** The latest image of every product that is not archived, with its newest finished scan (re-matching's targets). */
  async latestOfActiveProducts(): Promise<Array<{ productId: string; imageId: string; scanId: string }>> {
    const images = await this.db
      .selectFrom('images')
      .innerJoin('products', 'products.id', 'images.product_id')
      .select(['images.id', 'images.product_id', 'images.create_time'])
      .where('images.is_archived', '=', 0)
      .where('products.is_archived', '=', 0)
      .orderBy('images.product_id').orderBy('images.create_time', 'desc').orderBy('images.id', 'desc')
      .execute();
    const out: Array<{ productId: string; imageId: string; scanId: string }> = [];
    const seen = new Set<string>();
    for (const image of images) {
      if (seen.has(image.product_id)) continue;
      seen.add(image.product_id);
      const scan = await this.db.selectFrom('scans').select('id').where('image_id', '=', image.id).where('state', '=', 'done')
        .orderBy('create_time', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
      if (scan) out.push({ productId: image.product_id, imageId: image.id, scanId: scan.id });
    }
    return out;
  }

  /** Moves the scan to `to` when its state is one of `from`; false when it was not (nothing changes). */
  async transition(id: string, from: ScanStateType[], to: ScanStateType, by: { authorId?: string | null; message?: string | null; error?: string | null } = {}): Promise<boolean> {
    const now = nowIso();
    const stateId = newId();
    // Inside a caller's transaction (the state change and its webhook deliveries commit together), joins it.
    const atomically = <T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> => (this.db.isTransaction ? fn(this.db) : this.db.transaction().execute(fn));
    return atomically(async (trx) => {
      const values: Partial<Database['scans']> = { state: to, state_id: stateId, state_time: now };
      if (to === 'failed') values.error = by.error ?? by.message ?? 'scan failed';
      if (to !== 'running') {
        values.progress_phase = null;
        values.progress_percent = null;
      }
      const result = await trx.updateTable('scans').set(values).where('id', '=', id).where('state', 'in', from).executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await trx
        .insertInto('scan_states')
        .values({ id: stateId, scan_id: id, type: to, author_id: by.authorId ?? null, message: by.message ?? by.error ?? null, create_time: now })
        .execute();
      return true;
    });
  }

  async setProgress(id: string, phase: string, percent: number): Promise<void> {
    await this.db
      .updateTable('scans')
      .set({ progress_phase: phase.slice(0, 100), progress_percent: Math.max(0, Math.min(100, Math.round(percent))) })
      .where('id', '=', id)
      .where('state', '=', 'running')
      .execute();
  }

  async setResult(id: string, resultBlobKey: string, engineVersion: string): Promise<void> {
    await this.db.updateTable('scans').set({ result_blob_key: resultBlobKey, engine_version: engineVersion }).where('id', '=', id).execute();
  }

  /** Stores the scan's summary and replaces its problems (idempotent, so a retried scan stores once). */
  async setOutcome(id: string, summary: ScanSummary | undefined, problems: Array<Problem & { level: ProblemLevel }>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('scans').set({ summary: summary ? JSON.stringify(summary) : null }).where('id', '=', id).execute();
      await trx.deleteFrom('scan_problems').where('scan_id', '=', id).execute();
      const rows = problems.map((p, seq) => ({
        id: newId(), scan_id: id, seq, level: p.level, kind: p.kind, source: p.source, path: p.path ?? null,
        byte_offset: p.offset ?? null, message: p.message,
      }));
      for (let i = 0; i < rows.length; i += PROBLEM_BATCH) await trx.insertInto('scan_problems').values(rows.slice(i, i + PROBLEM_BATCH)).execute();
    });
  }

  /** One page of the scan's problems in the engine's order, optionally of some levels only, and how many match. */
  async listProblems(scanId: string, options: { levels?: ProblemLevel[]; offset: number; limit: number }): Promise<{ total: number; rows: StoredProblem[] }> {
    let query = this.db.selectFrom('scan_problems').where('scan_id', '=', scanId);
    if (options.levels && options.levels.length > 0) query = query.where('level', 'in', options.levels);
    const { total } = await query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
    const rows = await query.selectAll().orderBy('seq').offset(options.offset).limit(options.limit).execute();
    return {
      total: Number(total),
      rows: rows.map((r) => ({
        level: r.level, kind: r.kind as Problem['kind'], source: r.source, message: r.message,
        ...(r.path !== null ? { path: r.path } : {}),
        ...(r.byte_offset !== null ? { offset: Number(r.byte_offset) } : {}),
      })),
    };
  }

  async states(id: string): Promise<ScanStateRecord[]> {
    const rows = await this.db.selectFrom('scan_states').selectAll().where('scan_id', '=', id).orderBy('create_time').orderBy('id').execute();
    return rows.map((r) => ({ id: r.id, type: r.type, authorId: r.author_id, message: r.message, createTime: r.create_time }));
  }
}
