// Continuous re-matching: after the vulnerability database changes (import or sync), the components of the
// latest scanned image of every product are matched again. New vulnerabilities become findings of that scan;
// findings whose risk rose (newly in KEV, higher severity, EPSS reaching the threshold) are updated, and both
// are recorded as escalations (counted by the image's `newEscalationsCount`). One transaction per image.
// A finding that no longer matches (its record now has a narrower range, or was rejected) is withdrawn: its row
// is deleted, so it is no longer reported, counted or compared, and the image's open escalations about it go with
// it. Deleting, rather than setting an issue status, keeps the user's workflow intact: a status belongs to the
// product's fingerprint, carries forward to later images and records who set it (API-NOTES, Findings).
// Nothing is withdrawn from an image whose matching reported an error (a failed lookup is not "no match").
// Re-matches may overlap (a sync and an import, or an import re-run while the first still re-matches): each image's
// transaction first locks its scan (lockScanForResultWrite), so overlapping ones apply their changes one after the
// other, the later reading what the earlier committed; a finding is only ever inserted if its fingerprint is not
// in the scan yet (the unique index decides), and an escalation is recorded only for a row this transaction
// actually inserted or changed.
import type { Kysely } from 'kysely';
import { severityRank } from '../engine/vulns/cvss.js';
import { VulnerabilityMatcher } from '../engine/vulns/matcher.js';
import type { VulnerabilitySource } from '../engine/vulns/source.js';
import type { Component, EngineFinding, Problem } from '../engine/types.js';
import { newId, nowIso } from '../ids.js';
import { lockScanForResultWrite } from './result.repository.js';
import type { Database } from './schema.js';

export interface RematchOptions {
  /** EPSS probability at or above which a finding escalates when it was below before (default 0.1). */
  epssThreshold?: number;
}

export interface RematchSummary {
  images: number;
  newFindings: number;
  updatedFindings: number;
  /** Findings deleted because their vulnerability no longer matches. */
  withdrawnFindings: number;
  escalations: number;
  problems: Problem[];
}

export type EscalationReason = 'new-vulnerability' | 'kev' | 'severity' | 'epss';

/** Why a finding's risk rose between two matches of it (empty when it did not). */
export function escalationsOf(old: EngineFinding, now: EngineFinding, epssThreshold: number): Array<{ reason: EscalationReason; details: Record<string, unknown> }> {
  const out: Array<{ reason: EscalationReason; details: Record<string, unknown> }> = [];
  if (now.isKev && !old.isKev) out.push({ reason: 'kev', details: { isKev: { old: false, new: true } } });
  if (severityRank(now.severity) > severityRank(old.severity)) out.push({ reason: 'severity', details: { severity: { old: old.severity, new: now.severity } } });
  const before = old.epss?.probability ?? 0;
  const after = now.epss?.probability ?? 0;
  if (after >= epssThreshold && before < epssThreshold) out.push({ reason: 'epss', details: { epssProbability: { old: old.epss?.probability ?? null, new: after }, threshold: epssThreshold } });
  return out;
}

function findingColumns(f: EngineFinding) {
  return {
    fingerprint: f.fingerprint, finding_type: f.findingType, pname: f.pname, name: f.name, severity: f.severity,
    cvss_score: f.cvssLatestBaseScore ?? null, epss_probability: f.epss?.probability ?? null, is_kev: f.isKev ? 1 : 0,
    component_name: f.component?.name ?? null, component_version: f.component?.version ?? null, data: JSON.stringify(f),
  };
}

/** The latest image of every product that is not archived, with its newest finished scan. */
async function latestScans(db: Kysely<Database>): Promise<Array<{ productId: string; imageId: string; scanId: string }>> {
  const images = await db
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
    const scan = await db.selectFrom('scans').select('id').where('image_id', '=', image.id).where('state', '=', 'done')
      .orderBy('create_time', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
    if (scan) out.push({ productId: image.product_id, imageId: image.id, scanId: scan.id });
  }
  return out;
}

export async function rematchLatestImages(db: Kysely<Database>, source: VulnerabilitySource, options: RematchOptions = {}): Promise<RematchSummary> {
  const threshold = options.epssThreshold ?? 0.1;
  const summary: RematchSummary = { images: 0, newFindings: 0, updatedFindings: 0, withdrawnFindings: 0, escalations: 0, problems: [] };
  const matcher = new VulnerabilityMatcher(source);
  for (const target of await latestScans(db)) {
    const components = (await db.selectFrom('components').select('data').where('scan_id', '=', target.scanId).execute())
      .map((r) => JSON.parse(r.data) as Component);
    const problemsBefore = summary.problems.length;
    const findings = await matcher.matchAll(components, summary.problems);
    const complete = !summary.problems.slice(problemsBefore).some((p) => p.kind === 'error');
    summary.images++;
    await db.transaction().execute(async (trx) => {
      if (!(await lockScanForResultWrite(trx, target.scanId))) return; // deleted since it was listed
      const existing = new Map((await trx.selectFrom('findings').select(['id', 'fingerprint', 'data'])
        .where('scan_id', '=', target.scanId).where('finding_type', '=', 'dependencyVulnerability').execute())
        .map((r) => [r.fingerprint, { id: r.id, finding: JSON.parse(r.data) as EngineFinding }]));
      const open = new Set((await trx.selectFrom('escalations').select(['finding_fingerprint', 'reason'])
        .where('image_id', '=', target.imageId).where('acknowledged', '=', 0).execute())
        .map((e) => `${e.finding_fingerprint}\0${e.reason}`));
      const now = nowIso();
      const escalate = async (fingerprint: string, reason: EscalationReason, details: Record<string, unknown>) => {
        if (open.has(`${fingerprint}\0${reason}`)) return;
        open.add(`${fingerprint}\0${reason}`);
        await trx.insertInto('escalations').values({
          id: newId(), product_id: target.productId, image_id: target.imageId, finding_fingerprint: fingerprint,
          reason, details: JSON.stringify(details), acknowledged: 0, create_time: now,
        }).execute();
        summary.escalations++;
      };
      for (const finding of findings) {
        const old = existing.get(finding.fingerprint);
        if (!old) {
          const inserted = await trx.insertInto('findings').values({
            id: newId(), scan_id: target.scanId, image_id: target.imageId, product_id: target.productId, create_time: now, ...findingColumns(finding),
          }).onConflict((oc) => oc.columns(['scan_id', 'fingerprint']).doNothing()).returning('id').executeTakeFirst();
          if (!inserted) continue; // the scan has it already (a finding of another type cannot share the fingerprint)
          summary.newFindings++;
          await escalate(finding.fingerprint, 'new-vulnerability', { pname: finding.pname, severity: finding.severity, isKev: finding.isKev ?? false });
          continue;
        }
        if (JSON.stringify(old.finding) === JSON.stringify(finding)) continue;
        const updated = await trx.updateTable('findings').set(findingColumns(finding)).where('id', '=', old.id).executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) continue;
        summary.updatedFindings++;
        for (const e of escalationsOf(old.finding, finding, threshold)) await escalate(finding.fingerprint, e.reason, e.details);
      }
      if (!complete) return;
      const matched = new Set(findings.map((f) => f.fingerprint));
      const withdrawn = [...existing].filter(([fingerprint]) => !matched.has(fingerprint));
      for (let i = 0; i < withdrawn.length; i += 400) {
        const part = withdrawn.slice(i, i + 400);
        await trx.deleteFrom('findings').where('id', 'in', part.map(([, f]) => f.id)).execute();
        await trx.deleteFrom('escalations').where('image_id', '=', target.imageId).where('acknowledged', '=', 0)
          .where('finding_fingerprint', 'in', part.map(([fingerprint]) => fingerprint)).execute();
      }
      summary.withdrawnFindings += withdrawn.length;
    });
  }
  return summary;
}
