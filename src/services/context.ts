// What the use cases run on: the repositories, the blob store and the upload settings. server.ts builds it; the
// api receives it and hands it to services without reaching into it (it never imports the store itself).
import type { BlobStore, StoredBlob } from '../store/blob-store.js';
import type { Repositories } from '../store/repositories.js';
import type { UploadSettings } from './uploads.js';

export type { BlobStore, Repositories, StoredBlob };

export interface ServiceContext {
  repos: Repositories;
  blobs: BlobStore;
  uploads: UploadSettings;
  baseUrl: string;
  /** Webhooks may target loopback and private addresses (FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE=1). */
  webhookAllowPrivate?: boolean;
}
