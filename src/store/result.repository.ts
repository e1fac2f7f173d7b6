// A finished scan's stored result: components, findings and crypto assets as rows (queried by the API),
// plus the image counts computed from them. The files tree and problems live in a blob (see services).
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Component, CryptoAsset, EngineFinding, ScanResult } from '../engine/types.js';
import type { KernelEvidence } from '../engine/vulns/kernel-evidence.js';
import { replaceScanBinaries } from './binary.repository.js';
import { dialectOf } from './database.js';
import { findingRow, type ScanRef } from './finding-row.js';
import { newId, nowIso } from '../ids.js';
import type { Database } from './schema.js';

type Numeric = number | string | bigint | null;

export type { ScanRef };

export interface StoredComponent extends Component {
  id: string;
}

export interface StoredCryptoAsset extends CryptoAsset {
  id: string;
  scanId: string;
  imageId: string;
}

export interface ImageCounts {
  newEscalationsCount: number;
  dependenciesCount: number;
  cryptographicAssetsCount: number;
  findingTypeCounts: Array<{ type: string; count: number }>;
  kev: number;
  expiredCertificatesCount: number;
  unsafeFunctionsCount: number;
  /** Kernel findings the triage found not applicable (code not built), counted apart from findingTypeCounts. */
  notApplicableCount: number;
  /** The not-applicable kernel findings by the triage rule that removed them (config-option-off, other-architecture, ...). */
  notApplicableByRule: Array<{ rule: string; count: number }>;
}

const BATCH = 100;

async function insertBatches<T extends keyof Database>(db: Kysely<Database>, table: T, rows: Array<Database[T]>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) {
    await db.insertInto(table).values(rows.slice(i, i + BATCH) as never).execute();
  }
}

/**
 * Locks the scan's row until the transaction ends, so that writers of its result rows (storing the result,
 * re-matching its vulnerabilities) run one after the other, each reading what the one before committed. Without
 * it, two PostgreSQL transactions (READ COMMITTED) could both find a vulnerability missing and both record it, or
 * both see a risk rise and both escalate it; the unique index on findings(scan_id, fingerprint) stops the first,
 * not the second. FOR NO KEY UPDATE conflicts with itself and with updates of the row, but not with the key-share
 * locks that inserting rows referring to the scan takes. On SQLite every transaction begins IMMEDIATE (the
 * database's one write lock, see database.ts), which already serialises them. False when the scan is gone.
 */
export async function lockScanForResultWrite(trx: Transaction<Database> | Kysely<Database>, scanId: string): Promise<boolean> {
  if (!trx.isTransaction) throw new Error('lockScanForResultWrite needs a transaction');
  let query = trx.selectFrom('scans').select('id').where('id', '=', scanId);
  if (dialectOf(trx) === 'postgres') query = query.forNoKeyUpdate();
  return (await query.executeTakeFirst()) !== undefined;
}

export class ResultRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Replaces the scan's rows with the result's (idempotent, so a retried scan stores once). */
  async store(ref: ScanRef, result: Pick<ScanResult, 'components' | 'findings' | 'cryptoAssets' | 'binaries' | 'kernelEvidence'>): Promise<void> {
    const now = nowIso();
    await this.db.transaction().execute(async (trx) => {
      await lockScanForResultWrite(trx, ref.scanId);
      for (const table of ['components', 'findings', 'crypto_assets'] as const) {
        await trx.deleteFrom(table).where('scan_id', '=', ref.scanId).execute();
      }
      await insertBatches(trx, 'components', result.components.map((c) => ({
        id: newId(), scan_id: ref.scanId, image_id: ref.imageId, product_id: ref.productId, ref: c.ref, name: c.name,
        version: c.version ?? null, type: c.type, cpe: c.cpe ?? null, purl: c.purl ?? null, data: JSON.stringify(c),
      })));
      // One row per fingerprint (the unique index): the engine merged them already, and should two findings still
      // share one, the first is kept rather than failing the whole result.
      const findings = result.findings.map((f) => findingRow(ref, f, now));
      for (let i = 0; i < findings.length; i += BATCH) {
        await trx.insertInto('findings').values(findings.slice(i, i + BATCH))
          .onConflict((oc) => oc.columns(['scan_id', 'fingerprint']).doNothing()).execute();
      }
      await insertBatches(trx, 'crypto_assets', result.cryptoAssets.map((a) => ({
        id: newId(), scan_id: ref.scanId, image_id: ref.imageId, product_id: ref.productId, ref: a.ref, asset_type: a.assetType,
        name: a.name, is_expired: a.details['expired'] === true ? 1 : 0, data: JSON.stringify(a),
      })));
      await replaceScanBinaries(trx, ref, result.binaries);
      // a retried scan of the image gives the same evidence, or none again (then there is none to replace)
      if (result.kernelEvidence) {
        await trx.deleteFrom('scan_kernel_evidence').where('scan_id', '=', ref.scanId).execute();
        await trx.insertInto('scan_kernel_evidence').values({ scan_id: ref.scanId, data: JSON.stringify(result.kernelEvidence) }).execute();
      }
    });
  }

  /** What the scan's image said about its kernel's build, when it has a kernel (re-matching triages with it). */
  async kernelEvidence(scanId: string): Promise<KernelEvidence | undefined> {
    const row = await this.db.selectFrom('scan_kernel_evidence').select('data').where('scan_id', '=', scanId).executeTakeFirst();
    return row ? (JSON.parse(row.data) as KernelEvidence) : undefined;
  }

  async components(scanId: string): Promise<StoredComponent[]> {
    const rows = await this.db.selectFrom('components').select(['id', 'data']).where('scan_id', '=', scanId).orderBy('name').orderBy('id').execute();
    return rows.map((r) => ({ ...(JSON.parse(r.data) as Component), id: r.id }));
  }

  /** The scan's components as the engine gave them, in the order they were stored (what re-matching matches). */
  async engineComponents(scanId: string): Promise<Component[]> {
    const rows = await this.db.selectFrom('components').select('data').where('scan_id', '=', scanId).execute();
    return rows.map((r) => JSON.parse(r.data) as Component);
  }

  async cryptoAssets(scanId: string): Promise<StoredCryptoAsset[]> {
    const rows = await this.db.selectFrom('crypto_assets').select(['id', 'scan_id', 'image_id', 'data']).where('scan_id', '=', scanId).orderBy('name').orderBy('id').execute();
    return rows.map((r) => ({ ...(JSON.parse(r.data) as CryptoAsset), id: r.id, scanId: r.scan_id, imageId: r.image_id }));
  }

  /**
   * Counts of an image from its latest finished scan (all zero before one exists), plus open escalations.
   * unsafeFunctionsCount is the scan's stored total of unsafe function uses (call sites where decoded, imports
   * elsewhere: totalUnsafeUses); a scan stored before binaries were recorded (0006) counts 0 until rescanned.
   */
  async counts(imageId: string, scanId: string | undefined): Promise<ImageCounts> {
    return (await this.countsOf([{ imageId, scanId }])).get(imageId)!;
  }

  /** The counts of several images, each from its latest finished scan, in a fixed number of queries. */
  async countsOf(images: Array<{ imageId: string; scanId: string | undefined }>): Promise<Map<string, ImageCounts>> {
    const imageIds = images.map((i) => i.imageId);
    const scanIds = images.flatMap((i) => (i.scanId ? [i.scanId] : []));
    const n = (value: Numeric | undefined) => Number(value ?? 0);
    const escalations = imageIds.length === 0 ? [] : await this.db
      .selectFrom('escalations').select(['image_id', sql<Numeric>`count(*)`.as('n')])
      .where('image_id', 'in', imageIds).where('acknowledged', '=', 0).groupBy('image_id').execute();
    const newEscalations = new Map(escalations.map((r) => [r.image_id, n(r.n)]));
    const perScan = new Map<string, Omit<ImageCounts, 'newEscalationsCount'>>();
    if (scanIds.length > 0) {
      const components = await this.db.selectFrom('components').select(['scan_id', sql<Numeric>`count(*)`.as('n')])
        .where('scan_id', 'in', scanIds).groupBy('scan_id').execute();
      const assets = await this.db.selectFrom('crypto_assets')
        .select(['scan_id', sql<Numeric>`count(*)`.as('n'), sql<Numeric>`sum(case when is_expired = 1 then 1 else 0 end)`.as('expired')])
        .where('scan_id', 'in', scanIds).groupBy('scan_id').execute();
      const types = await this.db.selectFrom('findings')
        .select(['scan_id', 'finding_type', sql<Numeric>`count(*)`.as('n'), sql<Numeric>`sum(case when is_kev = 1 then 1 else 0 end)`.as('kev')])
        .where('scan_id', 'in', scanIds).where((eb) => eb.or([eb('applicability', 'is', null), eb('applicability', '!=', 'not-applicable')]))
        .groupBy(['scan_id', 'finding_type']).orderBy('finding_type').execute();
      const notApplicable = await this.db.selectFrom('findings').select(['scan_id', 'applicability_rule', sql<Numeric>`count(*)`.as('n')])
        .where('scan_id', 'in', scanIds).where('applicability', '=', 'not-applicable').groupBy(['scan_id', 'applicability_rule'])
        .orderBy('scan_id').orderBy('applicability_rule').execute();
      const unsafe = await this.db.selectFrom('scans').select(['id', 'unsafe_uses']).where('id', 'in', scanIds).execute();
      for (const scanId of scanIds) {
        perScan.set(scanId, {
          dependenciesCount: 0, cryptographicAssetsCount: 0, findingTypeCounts: [], kev: 0, expiredCertificatesCount: 0, unsafeFunctionsCount: 0, notApplicableCount: 0, notApplicableByRule: [],
        });
      }
      for (const r of components) perScan.get(r.scan_id)!.dependenciesCount = n(r.n);
      for (const r of assets) Object.assign(perScan.get(r.scan_id)!, { cryptographicAssetsCount: n(r.n), expiredCertificatesCount: n(r.expired) });
      for (const r of types) {
        const counts = perScan.get(r.scan_id)!;
        counts.findingTypeCounts.push({ type: r.finding_type, count: n(r.n) });
        counts.kev += n(r.kev);
      }
      for (const r of unsafe) perScan.get(r.id)!.unsafeFunctionsCount = n(r.unsafe_uses);
      for (const r of notApplicable) {
        const counts = perScan.get(r.scan_id)!;
        counts.notApplicableCount += n(r.n);
        // rows triaged before the rule was stored (0106) count under 'unrecorded'
        counts.notApplicableByRule.push({ rule: r.applicability_rule ?? 'unrecorded', count: n(r.n) });
      }
    }
    return new Map(images.map(({ imageId, scanId }) => [imageId, {
      newEscalationsCount: newEscalations.get(imageId) ?? 0,
      dependenciesCount: 0, cryptographicAssetsCount: 0, findingTypeCounts: [], kev: 0, expiredCertificatesCount: 0, unsafeFunctionsCount: 0, notApplicableCount: 0, notApplicableByRule: [],
      ...(scanId ? perScan.get(scanId) : {}),
    }]));
  }
}
