// Stored records → the wire shapes of API-NOTES (ids, parents, authors, reported scan states). Pure functions
// of what they are given: the services read everything an output needs beforehand.
import type { Image, ImageFile, ImageView } from '../services/images.js';
import type { Product } from '../services/products.js';
import type { Scan, ScanStateType } from '../services/scans.js';

const REPORTED: Record<ScanStateType, string> = {
  new: 'in_progress', running: 'in_progress', done: 'completed', failed: 'failed', cancelled: 'cancelled',
};

export const productParent = (productId: string) => `products/${productId}`;
export const imageParent = (productId: string, imageId: string) => `products/${productId}/images/${imageId}`;

export function productOut(p: Product, withParent = false) {
  return {
    id: productParent(p.id),
    name: p.name,
    ...(p.description !== null ? { description: p.description } : {}),
    createTime: p.createTime,
    updateTime: p.updateTime,
    ...(p.author ? { author: p.author } : {}),
    ...(withParent ? { parent: `organisations/${p.orgId}` } : {}),
    isArchived: p.isArchived,
  };
}

/** `reported` = the `status=true` vocabulary (in_progress, completed, ...); otherwise the settable values. */
export function scanOut(scan: Scan, reported: boolean) {
  const parent = imageParent(scan.productId, scan.imageId);
  return {
    id: scan.id,
    createTime: scan.createTime,
    ...(scan.author ? { author: scan.author } : {}),
    parent,
    latestScanState: {
      id: scan.stateId,
      type: reported ? REPORTED[scan.state] : scan.state,
      createTime: scan.stateTime,
      updateTime: scan.stateTime,
      parent: `${parent}/scans/${scan.id}`,
      ...(scan.author ? { author: scan.author } : {}),
      source: scan.id,
      ...(scan.state === 'failed' ? { error: { message: scan.error ?? 'scan failed' } } : {}),
      ...(scan.state === 'running' && scan.progress ? { progress: scan.progress } : {}),
    },
    ...(scan.summary ? { summary: scan.summary } : {}),
  };
}

/** Whether the latest scan's result can be trusted (outcome-schemas.ts); undefined while it is not finished. */
export function analysisOut(latest: Scan | undefined) {
  if (latest?.state === 'failed') return { scanId: latest.id, state: latest.state, complete: false, reasons: [latest.error ?? 'scan failed'] };
  if (latest?.state !== 'done' || !latest.summary) return undefined;
  return { scanId: latest.id, state: latest.state, complete: latest.summary.complete, reasons: latest.summary.incompleteReasons };
}

export function fileOut(file: ImageFile, baseUrl: string) {
  const parent = imageParent(file.productId, file.imageId);
  return {
    id: file.id,
    createTime: file.createTime,
    ...(file.author ? { author: file.author } : {}),
    filename: file.filename,
    isAttachment: true,
    downloadUrl: `${baseUrl}/api/v4/${parent}/files/${file.id}/download`,
    parent,
    size: file.size,
    metadata: file.metadata,
  };
}

export interface ImageOutOptions {
  reported: boolean;
  baseUrl: string;
}

/** An image with its overview; counts and hardening appear when the overview was read with them. */
export function imageOut({ image, overview }: ImageView, options: ImageOutOptions) {
  const { scans, files } = overview;
  const analysis = analysisOut(scans[0]);
  return {
    id: image.id,
    name: image.name,
    ...(image.version !== null ? { version: image.version } : {}),
    createTime: image.createTime,
    ...(image.author ? { author: image.author } : {}),
    parent: productParent(image.productId),
    isArchived: image.isArchived,
    fileName: image.fileName,
    size: image.size,
    hashes: { sha256: image.sha256, sha1: image.sha1, md5: image.md5 },
    ...(image.detectedType ? { detectedType: image.detectedType } : {}),
    files: files.map((f) => fileOut(f, options.baseUrl)),
    scans: scans.map((s) => scanOut(s, options.reported)),
    ...(scans[0] ? { latestScan: scanOut(scans[0], options.reported) } : {}),
    ...(overview.counts ? { counts: overview.counts } : {}),
    ...(overview.hardening ? { hardening: overview.hardening } : {}),
    ...(analysis ? { analysis } : {}),
  };
}
