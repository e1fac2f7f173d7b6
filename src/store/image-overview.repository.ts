// What an image shows besides its own row (its scans, attached files, result counts and the hardening of
// its latest completed scan), read for a whole page of images in a fixed number of queries: one query per
// kind of fact, grouped by image or scan, never one per image.
import type { Kysely } from 'kysely';
import { BinaryRepository, type HardeningSummary } from './binary.repository.js';
import { ImageRepository, type ImageFile } from './image.repository.js';
import { ResultRepository, type ImageCounts } from './result.repository.js';
import { ScanRepository, type Scan } from './scan.repository.js';
import type { Database } from './schema.js';

export interface ImageOverview {
  /** Newest first. */
  scans: Scan[];
  files: ImageFile[];
  /** Counted on the latest completed scan (escalations on the whole image); only when asked for. */
  counts?: ImageCounts;
  /** The latest completed scan's, when its binaries were recorded; only when counts were asked for. */
  hardening?: HardeningSummary;
}

export class ImageOverviewRepository {
  private readonly scans: ScanRepository;
  private readonly images: ImageRepository;
  private readonly binaries: BinaryRepository;
  private readonly results: ResultRepository;

  constructor(db: Kysely<Database>) {
    this.scans = new ScanRepository(db);
    this.images = new ImageRepository(db);
    this.binaries = new BinaryRepository(db);
    this.results = new ResultRepository(db);
  }

  async of(imageIds: string[], options: { withCounts: boolean }): Promise<Map<string, ImageOverview>> {
    const scans = await this.scans.listByImages(imageIds);
    const files = await this.images.listFilesOfImages(imageIds);
    const latestDone = new Map<string, string>();
    for (const [imageId, list] of scans) {
      const done = list.find((s) => s.state === 'done');
      if (done) latestDone.set(imageId, done.id);
    }
    const counts = options.withCounts ? await this.results.countsOf(imageIds.map((imageId) => ({ imageId, scanId: latestDone.get(imageId) }))) : undefined;
    const hardening = options.withCounts ? await this.binaries.hardeningOf([...latestDone.values()]) : undefined;
    const out = new Map<string, ImageOverview>();
    for (const imageId of imageIds) {
      const scanId = latestDone.get(imageId);
      const summary = scanId ? hardening?.get(scanId) : undefined;
      out.set(imageId, {
        scans: scans.get(imageId) ?? [],
        files: files.get(imageId) ?? [],
        ...(counts ? { counts: counts.get(imageId)! } : {}),
        ...(summary ? { hardening: summary } : {}),
      });
    }
    return out;
  }
}
