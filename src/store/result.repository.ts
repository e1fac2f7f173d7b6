// A finished scan's stored result: components, findings and crypto assets as rows (queried by the API),
// plus the image counts computed from them. The files tree and problems live in a blob (see services).
import type { Kysely, Transaction } from 'kysely';
import type { Component, CryptoAsset, EngineFinding, ScanResult } from '../engine/types.js';
import { replaceScanBinaries } from './binary.repository.js';
import { dialectOf } from './database.js';
import { newId, nowIso } from './ids.js';
import type { Database } from './schema.js';

export interface ScanRef {
  scanId: string;
  imageId: string;
  productId: string;
}

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
export async function lockScanForResultWrite(trx: Transaction<Database>, scanId: string): Promise<boolean> {
  let query = trx.selectFrom('scans').select('id').where('id', '=', scanId);
  if (dialectOf(trx) === 'postgres') query = query.forNoKeyUpdate();
  return (await query.executeTakeFirst()) !== undefined;
}

export class ResultRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Replaces the scan's rows with the result's (idempotent, so a retried scan stores once). */
  async store(ref: ScanRef, result: Pick<ScanResult, 'components' | 'findings' | 'cryptoAssets' | 'binaries'>): Promise<void> {
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
    });
  }

  async components(scanId: string): Promise<StoredComponent[]> {
    const rows = await this.db.selectFrom('components').select(['id', 'data']).where('scan_id', '=', scanId).orderBy('name').orderBy('id').execute();
    return rows.map((r) => ({ ...(JSON.parse(r.data) as Component), id: r.id }));
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
    const escalations = await this.db
      .selectFrom('escalations').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('image_id', '=', imageId).where('acknowledged', '=', 0).executeTakeFirstOrThrow();
    const empty: ImageCounts = {
      newEscalationsCount: Number(escalations.n), dependenciesCount: 0, cryptographicAssetsCount: 0, findingTypeCounts: [], kev: 0,
      expiredCertificatesCount: 0, unsafeFunctionsCount: 0,
    };
    if (!scanId) return empty;
    const count = (n: { n: number | string | bigint }) => Number(n.n);
    const components = await this.db.selectFrom('components').select((eb) => eb.fn.countAll<number>().as('n')).where('scan_id', '=', scanId).executeTakeFirstOrThrow();
    const assets = await this.db.selectFrom('crypto_assets').select((eb) => eb.fn.countAll<number>().as('n')).where('scan_id', '=', scanId).executeTakeFirstOrThrow();
    const expired = await this.db.selectFrom('crypto_assets').select((eb) => eb.fn.countAll<number>().as('n')).where('scan_id', '=', scanId).where('is_expired', '=', 1).executeTakeFirstOrThrow();
    const kev = await this.db.selectFrom('findings').select((eb) => eb.fn.countAll<number>().as('n')).where('scan_id', '=', scanId).where('is_kev', '=', 1).executeTakeFirstOrThrow();
    const unsafe = await this.db.selectFrom('scans').select('unsafe_uses').where('id', '=', scanId).executeTakeFirst();
    const types = await this.db
      .selectFrom('findings').select(['finding_type', (eb) => eb.fn.countAll<number>().as('n')])
      .where('scan_id', '=', scanId).groupBy('finding_type').orderBy('finding_type').execute();
    return {
      ...empty,
      dependenciesCount: count(components),
      cryptographicAssetsCount: count(assets),
      expiredCertificatesCount: count(expired),
      kev: count(kev),
      unsafeFunctionsCount: Number(unsafe?.unsafe_uses ?? 0),
      findingTypeCounts: types.map((t) => ({ type: t.finding_type, count: Number(t.n) })),
    };
  }
}

function findingRow(ref: ScanRef, f: EngineFinding, now: string): Database['findings'] {
  return {
    id: newId(), scan_id: ref.scanId, image_id: ref.imageId, product_id: ref.productId, fingerprint: f.fingerprint,
    finding_type: f.findingType, pname: f.pname, name: f.name, severity: f.severity,
    cvss_score: f.cvssLatestBaseScore ?? f.cvss?.cvssV4?.baseScore ?? f.cvss?.cvssV3?.baseScore ?? f.cvss?.cvssV2?.baseScore ?? null,
    epss_probability: f.epss?.probability ?? null, is_kev: f.isKev ? 1 : 0, component_name: f.component?.name ?? null,
    component_version: f.component?.version ?? null, create_time: now, data: JSON.stringify(f),
  };
}
