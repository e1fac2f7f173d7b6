// The binaries of a scan (the engine's ScanResult.binaries) as rows, written with the scan's result, and the
// hardening summary of a scan: how many binaries, and the share of them with each mitigation.
import { sql, type Kysely } from 'kysely';
import { totalUnsafeUses } from '../engine/binaries/unsafe-functions.js';
import type { BinaryInfo, BinaryUnsafeFunction } from '../engine/types.js';
import { newId } from '../ids.js';
import type { BinariesTable, Database } from './schema.js';

const BATCH = 100;

/** The JSON part of a row: what the grid shows but never filters by. */
export interface BinaryDetails {
  unsafeFunctions: BinaryUnsafeFunction[];
  callSitesDecoded: boolean;
  symbols: BinaryInfo['symbols'];
  rpath?: string | null;
  runpath?: string | null;
}

const flag = (value: boolean | undefined) => (value === undefined ? null : value ? 1 : 0);

function binaryRow(ref: { scanId: string; imageId: string; productId: string; orgId: string }, b: BinaryInfo): BinariesTable {
  const elf = b.format === 'elf' ? b.hardening : undefined;
  const pe = b.format === 'elf' ? undefined : b.hardening;
  const details: BinaryDetails = {
    unsafeFunctions: b.unsafeFunctions, callSitesDecoded: b.callSitesDecoded, symbols: b.symbols,
    ...(elf ? { rpath: elf.rpath, runpath: elf.runpath } : {}),
  };
  return {
    id: newId(), scan_id: ref.scanId, image_id: ref.imageId, product_id: ref.productId, org_id: ref.orgId,
    path: b.path, format: b.format, type: b.type, arch: b.arch, bits: b.bits, endian: b.endian, nx: b.hardening.nx ? 1 : 0,
    pie: flag(elf?.pie), relro: elf?.relro ?? null, canary: flag(elf?.canary), fortify: flag(elf?.fortify), stripped: flag(elf?.stripped),
    aslr: flag(pe?.aslr), high_entropy_va: flag(pe?.highEntropyVa), cfg: flag(pe?.cfg), safe_seh: flag(pe?.safeSeh),
    force_integrity: flag(pe?.forceIntegrity), signed: flag(pe?.signed),
    unsafe_uses: b.unsafeUses, network_facing: b.networkFacing ? 1 : 0, data: JSON.stringify(details),
  };
}

/**
 * Replaces the scan's binaries and sets its unsafe use total (`totalUnsafeUses`), inside the caller's
 * transaction (ResultRepository.store). `binaries` undefined (a result made before the engine reported them)
 * leaves the total null: unknown, not zero.
 */
export async function replaceScanBinaries(trx: Kysely<Database>, ref: { scanId: string; imageId: string; productId: string }, binaries: BinaryInfo[] | undefined): Promise<void> {
  await trx.deleteFrom('binaries').where('scan_id', '=', ref.scanId).execute();
  const scan = await trx.selectFrom('scans').select('org_id').where('id', '=', ref.scanId).executeTakeFirstOrThrow();
  const rows = (binaries ?? []).map((b) => binaryRow({ ...ref, orgId: scan.org_id }, b));
  for (let i = 0; i < rows.length; i += BATCH) await trx.insertInto('binaries').values(rows.slice(i, i + BATCH)).execute();
  await trx.updateTable('scans').set({ unsafe_uses: binaries ? totalUnsafeUses(binaries) : null }).where('id', '=', ref.scanId).execute();
}

/** Share (0..1) of the binaries of one format with each mitigation; 0 when there are none. */
export interface HardeningSummary {
  /** Every binary of the scan, kernels included. */
  binaries: number;
  /** ELF executables and shared objects (kernel images are not programs and are left out of the shares). */
  elf: { count: number; nx: number; pie: number; relroFull: number; relroPartial: number; canary: number; fortify: number; stripped: number };
  /** PE and TE images. */
  pe: { count: number; nx: number; aslr: number; highEntropyVa: number; cfg: number; safeSeh: number; forceIntegrity: number; signed: number };
}

type Numeric = number | string | bigint | null;

export class BinaryRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The scan's hardening summary; undefined when its binaries were never recorded (stored before 0006). */
  async hardening(scanId: string): Promise<HardeningSummary | undefined> {
    return (await this.hardeningOf([scanId])).get(scanId);
  }

  /**
   * The hardening summary of each scan, in a fixed number of queries whatever their number; a scan whose
   * binaries were never recorded (stored before 0006) has none.
   */
  async hardeningOf(scanIds: string[]): Promise<Map<string, HardeningSummary>> {
    const out = new Map<string, HardeningSummary>();
    if (scanIds.length === 0) return out;
    const recorded = await this.db.selectFrom('scans').select('id').where('id', 'in', scanIds).where('unsafe_uses', 'is not', null).execute();
    const ids = recorded.map((r) => r.id);
    if (ids.length === 0) return out;
    const sum = (column: string) => sql<Numeric>`sum(${sql.ref(column)})`;
    const elfRows = await this.db.selectFrom('binaries')
      .select([
        'scan_id', sql<Numeric>`count(*)`.as('count'), sum('nx').as('nx'), sum('pie').as('pie'), sum('canary').as('canary'), sum('fortify').as('fortify'),
        sum('stripped').as('stripped'),
        sql<Numeric>`sum(case when relro = 'full' then 1 else 0 end)`.as('relroFull'),
        sql<Numeric>`sum(case when relro = 'partial' then 1 else 0 end)`.as('relroPartial'),
      ])
      .where('scan_id', 'in', ids).where('format', '=', 'elf').where('type', '!=', 'kernel').groupBy('scan_id')
      .execute();
    const peRows = await this.db.selectFrom('binaries')
      .select([
        'scan_id', sql<Numeric>`count(*)`.as('count'), sum('nx').as('nx'), sum('aslr').as('aslr'), sum('high_entropy_va').as('highEntropyVa'), sum('cfg').as('cfg'),
        sum('safe_seh').as('safeSeh'), sum('force_integrity').as('forceIntegrity'), sum('signed').as('signed'),
      ])
      .where('scan_id', 'in', ids).where('format', 'in', ['pe', 'te']).groupBy('scan_id')
      .execute();
    const allRows = await this.db.selectFrom('binaries').select(['scan_id', sql<Numeric>`count(*)`.as('n')]).where('scan_id', 'in', ids).groupBy('scan_id').execute();
    const byScan = <T extends { scan_id: string }>(rows: T[]) => new Map(rows.map(({ scan_id, ...rest }) => [scan_id, rest]));
    const elf = byScan(elfRows);
    const pe = byScan(peRows);
    const all = byScan(allRows);
    const noElf = { count: 0, nx: 0, pie: 0, relroFull: 0, relroPartial: 0, canary: 0, fortify: 0, stripped: 0 };
    const noPe = { count: 0, nx: 0, aslr: 0, highEntropyVa: 0, cfg: 0, safeSeh: 0, forceIntegrity: 0, signed: 0 };
    for (const id of ids) {
      const e = elf.get(id);
      const p = pe.get(id);
      out.set(id, { binaries: Number(all.get(id)?.n ?? 0), elf: e ? shares(e) : noElf, pe: p ? shares(p) : noPe });
    }
    return out;
  }
}

/** `count` as a number and every other sum divided by it. */
function shares<T extends { count: Numeric }>(sums: T): { [K in keyof T]: number } {
  const count = Number(sums.count);
  return Object.fromEntries(Object.entries(sums).map(([key, value]) => [key, key === 'count' ? count : count === 0 ? 0 : Number(value ?? 0) / count])) as { [K in keyof T]: number };
}
