// Frozen once released. scan_kernel_evidence: what a scan's image says about its kernel's build (the kernel
// configuration, symbols, shipped and built-in modules, architecture: engine/vulns/kernel-evidence.ts), one JSON
// row per scan that has a kernel, so that re-matching triages new kernel findings without the image.
// findings.applicability_rule: the kernel triage rule that decided a finding's verdict (config-option-off,
// other-architecture, module-shipped, ...; null when not triaged), so the image counts say how many findings each
// rule removed. Portable types only. Never edit; add a new numbered 01xx migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scan_kernel_evidence')
    .addColumn('scan_id', 'text', (c) => c.primaryKey().references('scans.id').onDelete('cascade'))
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('findings').addColumn('applicability_rule', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0106-scan-kernel-evidence cannot be reverted');
}
