// Builds a report generator's input from stored data: the scan's rows, its result document and the subject.
import type { ReportInput } from '../reports/report.js';
import type { BlobStore } from '../store/blob-store.js';
import type { Image } from '../store/image.repository.js';
import type { Product } from '../store/product.repository.js';
import type { Scan } from '../store/scan.repository.js';
import { NotReadyError } from '../errors.js';
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

export async function loadReportInput(repos: Repositories, blobs: BlobStore, subject: { product: Product; image: Image; scan: Scan }): Promise<ReportInput> {
  const { product, image, scan } = subject;
  if (scan.state !== 'done' || !scan.resultBlobKey) throw new NotReadyError(`scan ${scan.id} is '${scan.state}'; reports are available once it is done`);
  const document = await readResultDocument(blobs, scan.resultBlobKey);
  const findings = await repos.findings.ofScan(scan.id);
  const components = await repos.results.components(scan.id);
  const cryptoAssets = await repos.results.cryptoAssets(scan.id);
  return {
    result: {
      ...document,
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
  };
}
