// Findings of stored scans and their workflow: the issue status lives on (product, fingerprint) with a
// history, so it carries forward to the same finding in every later image of the product.
import type { Kysely } from 'kysely';
import type { EngineFinding } from '../engine/types.js';
import type { VexJustification } from '../engine/types.js';
import { authorSelection, toAuthor, type Author } from './author.js';
import { findingColumns, findingRow, type ScanRef } from './finding-row.js';
import { newId, nowIso } from '../ids.js';
import { lockScanForResultWrite } from './result.repository.js';
import type { Database, FindingStatusesTable } from './schema.js';

export type IssueStatus = FindingStatusesTable['status'];
export const ISSUE_STATUSES: IssueStatus[] = ['new', 'inProgress', 'remediated', 'rejected'];

export interface StoredFinding extends EngineFinding {
  id: string;
  scanId: string;
  imageId: string;
  productId: string;
  issueStatus: IssueStatus;
  /** Why a rejected finding does not apply (an OpenVEX label), when recorded with its status. */
  justification?: VexJustification;
  /** The comment of the change that set the current status. */
  statusComment?: string;
  createTime: string;
}

export interface StatusChange {
  id: string;
  findingId: string;
  status: IssueStatus;
  comment: string | null;
  justification: VexJustification | null;
  createTime: string;
  author?: Author;
}

type Row = Pick<Database['findings'], 'id' | 'scan_id' | 'image_id' | 'product_id' | 'create_time' | 'data'> & {
  status: string | null;
  justification: string | null;
  comment: string | null;
};

/**
 * The status of a finding nobody has set one for: 'new', or for a kernel finding whose code the kernel triage
 * found not built, 'rejected' as vulnerable_code_not_present with the triage's reason (a user's status wins).
 */
export function defaultStatus(finding: EngineFinding): { issueStatus: IssueStatus; justification?: VexJustification; statusComment?: string } {
  if (finding.applicability?.verdict !== 'not-applicable') return { issueStatus: 'new' };
  return { issueStatus: 'rejected', justification: 'vulnerable_code_not_present', statusComment: `kernel triage: ${finding.applicability.reason}` };
}

const toFinding = (r: Row): StoredFinding => {
  const finding = JSON.parse(r.data) as EngineFinding;
  return {
    ...finding,
    id: r.id, scanId: r.scan_id, imageId: r.image_id, productId: r.product_id, createTime: r.create_time,
    ...(r.status === null ? defaultStatus(finding) : {
      issueStatus: r.status as IssueStatus,
      ...(r.justification ? { justification: r.justification as VexJustification } : {}),
      ...(r.comment ? { statusComment: r.comment } : {}),
    }),
  };
};

export class FindingRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private findings() {
    return this.db
      .selectFrom('findings')
      .leftJoin('finding_statuses as fs', (join) =>
        join.onRef('fs.product_id', '=', 'findings.product_id').onRef('fs.fingerprint', '=', 'findings.fingerprint'))
      .select(['findings.id', 'findings.scan_id', 'findings.image_id', 'findings.product_id', 'findings.create_time', 'findings.data', 'fs.status', 'fs.justification', 'fs.comment']);
  }

  async get(productId: string, id: string): Promise<StoredFinding | undefined> {
    const row = await this.findings().where('findings.product_id', '=', productId).where('findings.id', '=', id).executeTakeFirst();
    return row && toFinding(row);
  }

  /** Every finding of one scan with its current status (for reports). */
  async ofScan(scanId: string): Promise<StoredFinding[]> {
    const rows = await this.findings().where('findings.scan_id', '=', scanId).orderBy('findings.id').execute();
    return rows.map(toFinding);
  }

  /**
   * Sets the status of the finding's fingerprint in its product and records the change. The justification and
   * comment belong to the new state: a later change without them clears them.
   */
  async setStatus(
    finding: { id: string; productId: string; fingerprint: string }, status: IssueStatus, comment: string | null, authorId: string,
    justification: VexJustification | null = null,
  ): Promise<StatusChange> {
    const now = nowIso();
    const id = newId();
    // Inside a caller's transaction (the change and its webhook deliveries commit together), joins it.
    const atomically = (fn: (trx: Kysely<Database>) => Promise<void>): Promise<void> => (this.db.isTransaction ? fn(this.db) : this.db.transaction().execute(fn));
    await atomically(async (trx) => {
      await trx
        .insertInto('finding_statuses')
        .values({ product_id: finding.productId, fingerprint: finding.fingerprint, status, update_time: now, justification, comment })
        .onConflict((oc) => oc.columns(['product_id', 'fingerprint']).doUpdateSet({ status, update_time: now, justification, comment }))
        .execute();
      await trx
        .insertInto('finding_status_history')
        .values({ id, product_id: finding.productId, fingerprint: finding.fingerprint, finding_id: finding.id, status, comment, justification, author_id: authorId, create_time: now })
        .execute();
    });
    return (await this.history(finding.productId, finding.fingerprint)).find((h) => h.id === id)!;
  }

  async history(productId: string, fingerprint: string): Promise<StatusChange[]> {
    return (await this.histories(productId, [fingerprint])).get(fingerprint) ?? [];
  }

  /** The status histories of several fingerprints of a product, oldest change first, in one query per 500. */
  async histories(productId: string, fingerprints: readonly string[]): Promise<Map<string, StatusChange[]>> {
    const out = new Map<string, StatusChange[]>();
    for (let i = 0; i < fingerprints.length; i += 500) {
      const rows = await this.db
        .selectFrom('finding_status_history as h')
        .leftJoin('users as a', 'a.id', 'h.author_id')
        .select(['h.id', 'h.fingerprint', 'h.finding_id', 'h.status', 'h.comment', 'h.justification', 'h.create_time', 'h.author_id', ...authorSelection])
        .where('h.product_id', '=', productId)
        .where('h.fingerprint', 'in', fingerprints.slice(i, i + 500))
        .orderBy('h.create_time')
        .orderBy('h.id')
        .execute();
      for (const r of rows) {
        const list = out.get(r.fingerprint) ?? [];
        list.push({
          id: r.id, findingId: r.finding_id, status: r.status as IssueStatus, comment: r.comment,
          justification: r.justification as VexJustification | null, createTime: r.create_time, author: toAuthor(r),
        });
        out.set(r.fingerprint, list);
      }
    }
    return out;
  }

  /**
   * Locks the scan's row until the transaction ends (lockScanForResultWrite), so that writers of its findings run
   * one after the other. Only inside a transaction (repos.transaction). False when the scan is gone.
   */
  async lockScan(scanId: string): Promise<boolean> {
    return lockScanForResultWrite(this.db, scanId);
  }

  /** The dependency-vulnerability findings of a scan by fingerprint, with their row ids. */
  async dependencyFindingsOf(scanId: string): Promise<Map<string, { id: string; finding: EngineFinding }>> {
    const rows = await this.db.selectFrom('findings').select(['id', 'fingerprint', 'data'])
      .where('scan_id', '=', scanId).where('finding_type', '=', 'dependencyVulnerability').execute();
    return new Map(rows.map((r) => [r.fingerprint, { id: r.id, finding: JSON.parse(r.data) as EngineFinding }]));
  }

  /**
   * Adds the finding to the scan unless the scan holds its fingerprint already (the unique index decides, so two
   * writers cannot both add it); the new row's id when this call inserted it.
   */
  async insertIfAbsent(ref: ScanRef, finding: EngineFinding, now: string): Promise<string | undefined> {
    const inserted = await this.db.insertInto('findings').values(findingRow(ref, finding, now))
      .onConflict((oc) => oc.columns(['scan_id', 'fingerprint']).doNothing()).returning('id').executeTakeFirst();
    return inserted?.id;
  }

  /** Replaces a stored finding by its new match; false when the row is gone. */
  async replace(id: string, finding: EngineFinding): Promise<boolean> {
    const updated = await this.db.updateTable('findings').set(findingColumns(finding)).where('id', '=', id).executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  /**
   * Resolves findings that no longer apply: each row leaves the scan's findings (no longer reported, counted or
   * compared) and is kept in finding_resolutions with why.
   */
  async resolve(ref: ScanRef, resolved: Array<{ id: string; finding: EngineFinding; reason: string; details: Record<string, unknown> }>, now: string): Promise<void> {
    for (let i = 0; i < resolved.length; i += 100) {
      const part = resolved.slice(i, i + 100);
      await this.db.insertInto('finding_resolutions').values(part.map((r) => ({
        id: newId(), finding_id: r.id, scan_id: ref.scanId, image_id: ref.imageId, product_id: ref.productId, fingerprint: r.finding.fingerprint,
        pname: r.finding.pname, reason: r.reason, details: JSON.stringify(r.details), data: JSON.stringify(r.finding), create_time: now,
      }))).execute();
      await this.db.deleteFrom('findings').where('id', 'in', part.map((r) => r.id)).execute();
    }
  }

  /** The findings of a product that re-matching resolved, newest first, with why. */
  async resolutions(productId: string, fingerprint?: string): Promise<Array<{ findingId: string; scanId: string; imageId: string; fingerprint: string; pname: string; reason: string; details: Record<string, unknown>; createTime: string }>> {
    let query = this.db.selectFrom('finding_resolutions').selectAll().where('product_id', '=', productId);
    if (fingerprint !== undefined) query = query.where('fingerprint', '=', fingerprint);
    const rows = await query.orderBy('create_time', 'desc').orderBy('id', 'desc').execute();
    return rows.map((r) => ({
      findingId: r.finding_id, scanId: r.scan_id, imageId: r.image_id, fingerprint: r.fingerprint, pname: r.pname, reason: r.reason,
      details: JSON.parse(r.details) as Record<string, unknown>, createTime: r.create_time,
    }));
  }

}
