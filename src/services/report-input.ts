// Builds a report generator's input from stored data: the scan's rows, its result document and the subject.
import { FINDINGS_SECTIONS, type FindingsSection, type ReportBaseline, type ReportInput, type StatusChangeRecord } from '../reports/report.js';
import type { BinaryInfo } from '../engine/types.js';
import type { BinaryDetails } from '../store/binary.repository.js';
import type { BlobStore } from '../store/blob-store.js';
import type { Image } from '../store/image.repository.js';
import type { Product } from '../store/product.repository.js';
import type { Scan } from '../store/scan.repository.js';
import { NotFoundError, NotReadyError } from '../errors.js';
import type { Repositories } from '../store/repositories.js';
import { readResultDocument } from './result-document.js';

/** The latest completed scan of the image, or NotReadyError (422) naming the current state. */
export async function latestDoneScan(repos: Repositories, image: Image): Promise<Scan> {
  const done = await repos.scans.latest(image.id, ['done']);
  if (done) return done;
  const latest = await repos.scans.latest(image.id);
  throw new NotReadyError(
    latest ? `the latest scan of image ${image.id} is '${latest.state}'; reports are available once a scan is done` : `image ${image.id} has no scans; start one first`,
  );
}

/** The sections of the findings PDF and HTML reports, for routes to validate a `sections` option against. */
export { FINDINGS_SECTIONS, type FindingsSection };

/** What a caller may ask of the findings PDF and HTML reports. */
export interface ReportOptions {
  /** The image to compare with; default: the product's newest image uploaded before this one that has a completed scan. */
  baselineImageId?: string;
  sections?: FindingsSection[];
}

export async function loadReportInput(
  repos: Repositories, blobs: BlobStore, subject: { product: Product; image: Image; scan: Scan }, options: ReportOptions = {},
): Promise<ReportInput> {
  const { product, image, scan } = subject;
  if (scan.state !== 'done' || !scan.resultBlobKey) throw new NotReadyError(`scan ${scan.id} is '${scan.state}'; reports are available once it is done`);
  const document = await readResultDocument(blobs, scan.resultBlobKey);
  const findings = await repos.findings.ofScan(scan.id);
  const components = await repos.results.components(scan.id);
  const cryptoAssets = await repos.results.cryptoAssets(scan.id);
  const binaries = document.binaries ?? (await scanBinaries(repos, scan));
  return {
    result: {
      ...document,
      ...(binaries ? { binaries } : {}),
      components: components.map(({ id: _id, ...c }) => c),
      findings: findings.map(({ id: _id, scanId: _s, imageId: _i, productId: _p, issueStatus: _st, createTime: _c, ...f }) => f),
      cryptoAssets: cryptoAssets.map(({ id: _id, scanId: _s, imageId: _i, ...a }) => a),
    },
    subject: {
      product: { id: product.id, name: product.name },
      image: { id: image.id, name: image.name, ...(image.version ? { version: image.version } : {}), createTime: image.createTime },
      scan: { id: scan.id, createTime: scan.createTime },
    },
    findings,
    history: await triageHistory(repos, product.id, findings),
    ...(await baselineOf(repos, product, image, options.baselineImageId).then((b) => (b ? { baseline: b } : {}))),
    ...(options.sections ? { sections: options.sections } : {}),
  };
}

/** The history of each finding whose status was ever set (a finding without a status row has none). */
async function triageHistory(repos: Repositories, productId: string, findings: Array<{ id: string; fingerprint: string; issueStatus: string; statusComment?: string }>): Promise<Record<string, StatusChangeRecord[]>> {
  const out: Record<string, StatusChangeRecord[]> = {};
  const triaged = findings.filter((f) => f.issueStatus !== 'new' || f.statusComment);
  const histories = await repos.findings.histories(productId, [...new Set(triaged.map((f) => f.fingerprint))]);
  for (const f of triaged) {
    const changes = histories.get(f.fingerprint) ?? [];
    if (changes.length) {
      out[f.id] = changes.map((c) => ({
        status: c.status, time: c.createTime, ...(c.comment ? { comment: c.comment } : {}), ...(c.justification ? { justification: c.justification } : {}),
        ...(c.author?.email ? { author: c.author.email } : {}),
      }));
    }
  }
  return out;
}

/** The image to compare with and the findings of its latest completed scan; undefined when there is none. */
async function baselineOf(repos: Repositories, product: Product, image: Image, baselineImageId: string | undefined): Promise<ReportBaseline | undefined> {
  let baseline: { image: Image; scan: Scan } | undefined;
  if (baselineImageId !== undefined) {
    const chosen = await repos.images.get(product.id, baselineImageId);
    if (!chosen || chosen.id === image.id) throw new NotFoundError(`baseline image ${baselineImageId} is not another image of product ${product.id}`);
    const scan = await latestDoneScan(repos, chosen);
    baseline = { image: chosen, scan };
  } else {
    const earlier = (await repos.images.list(product.id))
      .filter((i) => i.id !== image.id && !i.isArchived && (i.createTime < image.createTime || (i.createTime === image.createTime && i.id < image.id)))
      .sort((a, b) => b.createTime.localeCompare(a.createTime) || b.id.localeCompare(a.id));
    for (const candidate of earlier) {
      const scan = await repos.scans.latest(candidate.id, ['done']);
      if (scan) {
        baseline = { image: candidate, scan };
        break;
      }
    }
  }
  if (!baseline) return undefined;
  const findings = await repos.findings.ofScan(baseline.scan.id);
  const i = baseline.image;
  return {
    image: { id: i.id, name: i.name, ...(i.version ? { version: i.version } : {}), createTime: i.createTime },
    findings: findings.map((f) => ({
      fingerprint: f.fingerprint, pname: f.pname, name: f.name, severity: f.severity, findingType: f.findingType,
      ...(f.component ? { component: { name: f.component.name, ...(f.component.version ? { version: f.component.version } : {}) } } : {}),
    })),
  };
}

/** The scan's binaries from their rows; undefined for a scan stored before binaries were recorded. */
async function scanBinaries(repos: Repositories, scan: Scan): Promise<BinaryInfo[] | undefined> {
  const { rows } = await repos.grids.binaries({ orgId: scan.orgId, conditions: [{ column: 'scan_id', comparator: 'equals', values: [scan.id] }], sort: [{ column: 'path', direction: 'asc' }], offset: 0 });
  if (!rows.length && (await repos.binaries.hardening(scan.id)) === undefined) return undefined;
  const flag = (v: number | null) => v === 1;
  return rows.map((r): BinaryInfo => {
    const d = JSON.parse(r.data) as BinaryDetails;
    const base = {
      path: r.path, type: r.type as BinaryInfo['type'], arch: r.arch, bits: r.bits as 32 | 64, endian: r.endian as 'le' | 'be',
      unsafeFunctions: d.unsafeFunctions, callSitesDecoded: d.callSitesDecoded, networkFacing: r.network_facing === 1, unsafeUses: r.unsafe_uses, symbols: d.symbols,
    };
    return r.format === 'elf'
      ? { ...base, format: 'elf', hardening: { nx: r.nx === 1, pie: flag(r.pie), relro: (r.relro ?? 'none') as 'full' | 'partial' | 'none', canary: flag(r.canary), fortify: flag(r.fortify), stripped: flag(r.stripped), rpath: d.rpath ?? null, runpath: d.runpath ?? null } }
      : { ...base, format: r.format as 'pe' | 'te', hardening: { nx: r.nx === 1, aslr: flag(r.aslr), highEntropyVa: flag(r.high_entropy_va), cfg: flag(r.cfg), safeSeh: flag(r.safe_seh), forceIntegrity: flag(r.force_integrity), signed: flag(r.signed) } };
  });
}
