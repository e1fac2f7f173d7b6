// Debug files attached to an image (.pdb, ELF debug files): attaching one records it and, unless asked not to,
// queues a new scan of the image in the same transaction, so the analysis names the functions of the binaries
// it matches (engine/binaries/debug-files.ts). Finding statuses carry forward to that scan by fingerprint, as for
// any rescan. The scan path gets local copies of the files (localDebugFiles).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Principal } from '../auth/principal.js';
import type { DebugFileInput } from '../engine/binaries/debug-files.js';
import type { BlobStore, StoredBlob } from '../store/blob-store.js';
import type { Image, ImageFile } from '../store/image.repository.js';
import type { Scan } from '../store/scan.repository.js';
import type { Repositories } from '../store/repositories.js';
import { createScanIn } from './scans.js';

export interface AttachInput {
  filename: string;
  blob: StoredBlob;
  metadata: Record<string, unknown>;
  /** Queue a scan of the image that uses the file (default true). */
  rescan: boolean;
}

/** Records the file and (unless `rescan` is false) queues a scan of the image; the blob is removed when that fails. */
export async function attachDebugFile(repos: Repositories, blobs: BlobStore, principal: Principal, image: Image, input: AttachInput): Promise<{ file: ImageFile; scan?: Scan }> {
  try {
    return await repos.transaction(async (tx) => {
      const file = await tx.images.addFile({
        imageId: image.id, productId: image.productId, filename: input.filename, blob: input.blob, authorId: principal.userId, metadata: input.metadata,
      });
      const scan = input.rescan ? await createScanIn(tx, image, principal.userId) : undefined;
      return { file, scan };
    });
  } catch (error) {
    await blobs.delete(input.blob.key).catch(() => {});
    throw error;
  }
}

/** Local paths of the image's attached files for the engine (a remote store downloads each into its own folder of `workDir`). */
export async function localDebugFiles(repos: Repositories, blobs: BlobStore, imageId: string, workDir: string): Promise<DebugFileInput[]> {
  const files = await repos.images.listFiles(imageId);
  const out: DebugFileInput[] = [];
  for (const [i, f] of files.entries()) {
    const dir = join(workDir, 'debug-files', String(i));
    await mkdir(dir, { recursive: true });
    out.push({ path: await blobs.localPath(f.blobKey, dir), name: f.filename });
  }
  return out;
}
