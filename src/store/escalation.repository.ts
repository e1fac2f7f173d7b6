// Escalations recorded by vulnerability re-matching (findings whose risk rose), listed per product with the
// finding they concern, and acknowledged by users (which lowers the image's `newEscalationsCount`).
import type { Kysely } from 'kysely';
import { newId } from '../ids.js';
import type { Database } from './schema.js';

export interface EscalationFinding {
  id: string;
  pname: string;
  name: string;
  severity: string;
  isKev: boolean;
  epssProbability?: number;
  componentName?: string;
  componentVersion?: string;
}

export interface Escalation {
  id: string;
  productId: string;
  imageId: string;
  fingerprint: string;
  reason: string;
  details: Record<string, unknown> | null;
  acknowledged: boolean;
  createTime: string;
  /** The finding of that image with that fingerprint (its newest scan's), when one exists. */
  finding?: EscalationFinding;
}

export interface EscalationFilter {
  imageId?: string;
  acknowledged?: boolean;
  reason?: string;
}

function parseDetails(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { text };
  }
}

export class EscalationRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Escalations of a product, newest first, each with its finding. */
  async list(productId: string, filter: EscalationFilter = {}): Promise<Escalation[]> {
    let query = this.db.selectFrom('escalations').selectAll().where('product_id', '=', productId);
    if (filter.imageId !== undefined) query = query.where('image_id', '=', filter.imageId);
    if (filter.acknowledged !== undefined) query = query.where('acknowledged', '=', filter.acknowledged ? 1 : 0);
    if (filter.reason !== undefined) query = query.where('reason', '=', filter.reason);
    const rows = await query.orderBy('create_time', 'desc').orderBy('id', 'desc').execute();
    if (rows.length === 0) return [];

    // One query for the findings of all listed images; an image scanned twice has the fingerprint in each
    // scan, and the newest scan's finding wins.
    const findings = await this.db
      .selectFrom('findings')
      .select(['id', 'image_id', 'fingerprint', 'pname', 'name', 'severity', 'is_kev', 'epss_probability', 'component_name', 'component_version'])
      .where('product_id', '=', productId)
      .where('image_id', 'in', [...new Set(rows.map((r) => r.image_id))])
      .where('fingerprint', 'in', [...new Set(rows.map((r) => r.finding_fingerprint))])
      .orderBy('create_time', 'desc').orderBy('id', 'desc')
      .execute();
    const byKey = new Map<string, EscalationFinding>();
    for (const f of findings) {
      const key = `${f.image_id}\0${f.fingerprint}`;
      if (byKey.has(key)) continue;
      byKey.set(key, {
        id: f.id, pname: f.pname, name: f.name, severity: f.severity, isKev: Boolean(f.is_kev),
        ...(f.epss_probability !== null ? { epssProbability: Number(f.epss_probability) } : {}),
        ...(f.component_name !== null ? { componentName: f.component_name } : {}),
        ...(f.component_version !== null ? { componentVersion: f.component_version } : {}),
      });
    }
    return rows.map((r) => {
      const finding = byKey.get(`${r.image_id}\0${r.finding_fingerprint}`);
      return {
        id: r.id, productId: r.product_id, imageId: r.image_id, fingerprint: r.finding_fingerprint, reason: r.reason,
        details: parseDetails(r.details), acknowledged: Boolean(r.acknowledged), createTime: r.create_time, ...(finding ? { finding } : {}),
      };
    });
  }

  /** Marks the product's listed escalations acknowledged; returns how many were open before. */
  async acknowledge(productId: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await this.db
      .updateTable('escalations')
      .set({ acknowledged: 1 })
      .where('product_id', '=', productId)
      .where('id', 'in', [...new Set(ids)])
      .where('acknowledged', '=', 0)
      .execute();
    return result.reduce((n, r) => n + Number(r.numUpdatedRows), 0);
  }

  /** The open (unacknowledged) escalations of an image, as `${fingerprint}\0${reason}` keys. */
  async openKeys(imageId: string): Promise<Set<string>> {
    const rows = await this.db.selectFrom('escalations').select(['finding_fingerprint', 'reason'])
      .where('image_id', '=', imageId).where('acknowledged', '=', 0).execute();
    return new Set(rows.map((e) => `${e.finding_fingerprint}\0${e.reason}`));
  }

  /** Records an escalation; `acknowledged` for an entry that only logs (it does not count as new). */
  async record(e: { productId: string; imageId: string; fingerprint: string; reason: string; details: Record<string, unknown>; now: string; acknowledged?: boolean }): Promise<void> {
    await this.db.insertInto('escalations').values({
      id: newId(), product_id: e.productId, image_id: e.imageId, finding_fingerprint: e.fingerprint,
      reason: e.reason, details: JSON.stringify(e.details), acknowledged: e.acknowledged ? 1 : 0, create_time: e.now,
    }).execute();
  }

  /** Closes (acknowledges) the image's open escalations about these findings; they stay in the log. */
  async closeOpen(imageId: string, fingerprints: string[]): Promise<void> {
    for (let i = 0; i < fingerprints.length; i += 400) {
      await this.db.updateTable('escalations').set({ acknowledged: 1 }).where('image_id', '=', imageId).where('acknowledged', '=', 0)
        .where('finding_fingerprint', 'in', fingerprints.slice(i, i + 400)).execute();
    }
  }
}
