// Files that arrive in a multipart form (an image sent inline, a debug-symbol file): stored as blobs while the
// request streams, under a fresh key in their area, and discarded when the request that brought them fails.
import type { Readable } from 'node:stream';
import { newId } from '../ids.js';
import type { BlobStore, StoredBlob } from '../store/blob-store.js';

export function storeFormFile(blobs: BlobStore, area: 'images' | 'files', content: Readable, maxBytes: number): Promise<StoredBlob> {
  return blobs.write(`${area}/${newId()}`, content, { maxBytes });
}

export function discardFormFile(blobs: BlobStore, blob: StoredBlob): Promise<void> {
  return blobs.delete(blob.key);
}
