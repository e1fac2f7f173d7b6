// What the resource plugins receive: passed explicitly as plugin options, never hung on the app instance.
import type { Repositories } from '../store/repositories.js';
import type { UploadSettings } from '../services/uploads.js';
import type { BlobStore } from '../store/blob-store.js';

export interface ApiDeps {
  repos: Repositories;
  blobs: BlobStore;
  uploads: UploadSettings;
  baseUrl: string;
}
