// Continuous re-matching: after the vulnerability database changes (import or sync), the components of the
// latest scanned image of every product are matched again. New vulnerabilities become findings of that scan;
// findings whose risk rose (newly in KEV, higher severity, EPSS reaching the threshold) are updated, and both
// are recorded as escalations (counted by the image's `newEscalationsCount`). One transaction per image.
// A finding that no longer matches (its record now has a narrower range, or was rejected) is resolved: it leaves
// the scan's findings (no longer reported, counted or compared) into the resolution history with why, the
// image's open escalations about it are closed, and a 'resolved' entry in the escalation log says why (logged as
// acknowledged: it is no risk rise). Resolving it there, rather than setting an issue status, keeps the user's
// workflow intact: a status belongs to the product's fingerprint, carries forward to later images and records who
// set it (API-NOTES, Findings). Should it match again later, it comes back as a new finding.
// Kernel findings are triaged as the scan did (kernel-triage.ts), on the kernel evidence stored with the scan.
// Nothing is resolved in an image whose matching reported an error (a failed lookup is not "no match").
// Re-matches may overlap (a sync and an import, or an import re-run while the first still re-matches): each image's
// transaction first locks its scan (findings.lockScan), so overlapping ones apply their changes one after the
// other, the later reading what the earlier committed; a finding is only ever inserted if its fingerprint is not
// in the scan yet (the unique index decides), and an escalation is recorded only for a row this transaction
// actually inserted or changed.
import { severityRank } from '../engine/vulns/cvss.js';
import { triageKernelFindings } from '../engine/vulns/kernel-triage.js';
import { VulnerabilityMatcher } from '../engine/vulns/matcher.js';
import type { VulnerabilitySource } from '../engine/vulns/source.js';
import type { EngineFinding, Problem } from '../engine/types.js';
import { nowIso } from '../ids.js';
import type { Repositories } from '../store/repositories.js';
import { emitEvent } from './webhook-events.js';

export interface RematchOptions {
  /** EPSS probability at or above which a finding escalates when it was below before (default 0.1). */
  epssThreshold?: number;
  /** The service's base URL, for the links of finding.escalated webhook events. */
  baseUrl?: string;
  /** Only these images (a re-match job's share of the fleet, rematch-jobs.ts); default: the latest image of every product. */
  targets?: RematchTarget[];
}

/** An image to re-match: its newest completed scan. */
export interface RematchTarget {
  productId: string;
  imageId: string;
  scanId: string;
}

export interface RematchSummary {
  images: number;
  newFindings: number;
  updatedFindings: number;
  /** Findings resolved because their vulnerability no longer matches (kept in the resolution history). */
  withdrawnFindings: number;
  escalations: number;
  problems: Problem[];
}

export type EscalationReason = 'new-vulnerability' | 'kev' | 'severity' | 'epss' | 'resolved';

/** Why a finding's risk rose between two matches of it (empty when it did not). */
export function escalationsOf(old: EngineFinding, now: EngineFinding, epssThreshold: number): Array<{ reason: EscalationReason; details: Record<string, unknown> }> {
  const out: Array<{ reason: EscalationReason; details: Record<string, unknown> }> = [];
  if (now.isKev && !old.isKev) out.push({ reason: 'kev', details: { isKev: { old: false, new: true }, ...(now.kev ? { kevDateAdded: now.kev.dateAdded } : {}) } });
  if (severityRank(now.severity) > severityRank(old.severity)) out.push({ reason: 'severity', details: { severity: { old: old.severity, new: now.severity } } });
  const before = old.epss?.probability ?? 0;
  const after = now.epss?.probability ?? 0;
  if (after >= epssThreshold && before < epssThreshold) out.push({ reason: 'epss', details: { epssProbability: { old: old.epss?.probability ?? null, new: after }, threshold: epssThreshold } });
  return out;
}

/** Why a stored finding was resolved: its vulnerability no longer matches the component, and how it matched before. */
export function whyResolved(finding: EngineFinding): Record<string, unknown> {
  const component = finding.component ? `${finding.component.name} ${finding.component.version ?? ''}`.trim() : 'the component';
  const before = ((finding.match?.matches ?? []) as Array<Record<string, unknown>>).map((m) => {
    const { matcher, criterion, kind, range, ecosystem, package: pkg, events } = m;
    return Object.fromEntries(Object.entries({ matcher, criterion, kind, range, ecosystem, package: pkg, events }).filter(([, v]) => v !== undefined));
  });
  return {
    pname: finding.pname, severity: finding.severity, reason: 'no-longer-matches',
    why: `${finding.pname} no longer matches ${component}: the vulnerability data changed (narrower range, rejected or withdrawn record)`,
    ...(finding.component ? { component: { name: finding.component.name, version: finding.component.version ?? null } } : {}),
    matchedBefore: before,
  };
}

export async function rematchLatestImages(repos: Repositories, source: VulnerabilitySource, options: RematchOptions = {}): Promise<RematchSummary> {
  const threshold = options.epssThreshold ?? 0.1;
  const summary: RematchSummary = { images: 0, newFindings: 0, updatedFindings: 0, withdrawnFindings: 0, escalations: 0, problems: [] };
  const matcher = new VulnerabilityMatcher(source);
  for (const target of options.targets ?? await repos.scans.latestOfActiveProducts()) {
    const components = await repos.results.engineComponents(target.scanId);
    const problemsBefore = summary.problems.length;
    const findings = await matcher.matchAll(components, summary.problems);
    // the kernel triage on the evidence the scan stored (its image is not needed); a scan stored before the
    // evidence was kept (0106) keeps each finding's verdict while the record's affected files stay the same
    const kernelEvidence = await repos.results.kernelEvidence(target.scanId);
    if (kernelEvidence) triageKernelFindings(findings, kernelEvidence);
    const complete = !summary.problems.slice(problemsBefore).some((p) => p.kind === 'error');
    summary.images++;
    const orgId = (await repos.images.getById(target.imageId))?.orgId;
    await repos.transaction(async (tx) => {
      if (!(await tx.findings.lockScan(target.scanId))) return; // deleted since it was listed
      const existing = await tx.findings.dependencyFindingsOf(target.scanId);
      const open = await tx.escalations.openKeys(target.imageId);
      const now = nowIso();
      const escalate = async (fingerprint: string, reason: EscalationReason, details: Record<string, unknown>, findingId?: string) => {
        if (open.has(`${fingerprint}\0${reason}`)) return;
        open.add(`${fingerprint}\0${reason}`);
        await tx.escalations.record({ productId: target.productId, imageId: target.imageId, fingerprint, reason, details, now });
        summary.escalations++;
        if (orgId) {
          await emitEvent(tx, {
            orgId, type: 'finding.escalated', baseUrl: options.baseUrl,
            data: { productId: target.productId, imageId: target.imageId, scanId: target.scanId, ...(findingId ? { findingId } : {}), fingerprint, reason, details },
          });
        }
      };
      for (const finding of findings) {
        const old = existing.get(finding.fingerprint);
        if (!kernelEvidence && old?.finding.applicability && !finding.applicability && JSON.stringify(old.finding.match?.programFiles) === JSON.stringify(finding.match?.programFiles)) {
          finding.applicability = old.finding.applicability;
          if (old.finding.matchConfidence) finding.matchConfidence = old.finding.matchConfidence;
        }
        if (!old) {
          // false: the scan has it already (a finding of another type cannot share the fingerprint)
          const insertedId = await tx.findings.insertIfAbsent(target, finding, now);
          if (!insertedId) continue;
          summary.newFindings++;
          await escalate(finding.fingerprint, 'new-vulnerability', { pname: finding.pname, severity: finding.severity, isKev: finding.isKev ?? false }, insertedId);
          continue;
        }
        if (JSON.stringify(old.finding) === JSON.stringify(finding)) continue;
        if (!(await tx.findings.replace(old.id, finding))) continue;
        summary.updatedFindings++;
        for (const e of escalationsOf(old.finding, finding, threshold)) await escalate(finding.fingerprint, e.reason, e.details, old.id);
      }
      if (!complete) return;
      const matched = new Set(findings.map((f) => f.fingerprint));
      const withdrawn = [...existing].filter(([fingerprint]) => !matched.has(fingerprint));
      const resolved = withdrawn.map(([, { id, finding }]) => ({ id, finding, reason: 'no-longer-matches', details: whyResolved(finding) }));
      await tx.findings.resolve(target, resolved, now);
      await tx.escalations.closeOpen(target.imageId, withdrawn.map(([fingerprint]) => fingerprint));
      for (const r of resolved) {
        await tx.escalations.record({ productId: target.productId, imageId: target.imageId, fingerprint: r.finding.fingerprint, reason: 'resolved', details: r.details, now, acknowledged: true });
      }
      summary.withdrawnFindings += withdrawn.length;
    });
  }
  return summary;
}
