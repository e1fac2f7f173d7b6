// Images of a product, the temp upload files they are finalized from, and files attached to them.
import type { Kysely } from 'kysely';
import { authorSelection, toAuthor, type Author } from './author.js';
import type { StoredBlob } from './blob-store.js';
import { newId, nowIso } from '../ids.js';
import type { Database } from './schema.js';

export interface Image {
  id: string;
  productId: string;
  orgId: string;
  name: string;
  version: string | null;
  fileName: string;
  blobKey: string;
  size: number;
  sha256: string;
  sha1: string;
  md5: string;
  detectedType: string | null;
  isArchived: boolean;
  createTime: string;
  updateTime: string;
  author?: Author;
}

export interface TempFile {
  id: string;
  productId: string;
  orgId: string;
  status: 'pending' | 'uploaded' | 'used';
  blob?: StoredBlob;
  expireTime: string;
}

export interface ImageFile {
  id: string;
  imageId: string;
  productId: string;
  filename: string;
  blobKey: string;
  size: number;
  sha256: string;
  metadata: Record<string, unknown>;
  createTime: string;
  author?: Author;
}

type AuthorCols = { author_email: string | null; author_create_time: string | null; author_status: string | null };

const toImage = (r: Database['images'] & AuthorCols): Image => ({
  id: r.id, productId: r.product_id, orgId: r.org_id, name: r.name, version: r.version, fileName: r.file_name,
  blobKey: r.blob_key, size: Number(r.size), sha256: r.sha256, sha1: r.sha1, md5: r.md5, detectedType: r.detected_type,
  isArchived: r.is_archived === 1, createTime: r.create_time, updateTime: r.update_time, author: toAuthor(r),
});

export class ImageRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private images() {
    return this.db.selectFrom('images').leftJoin('users as a', 'a.id', 'images.author_id').selectAll('images').select(authorSelection);
  }

  async create(input: {
    productId: string; orgId: string; name: string; version?: string | null; fileName: string; blob: StoredBlob; authorId: string;
  }): Promise<Image> {
    const now = nowIso();
    const id = newId();
    await this.db
      .insertInto('images')
      .values({
        id, product_id: input.productId, org_id: input.orgId, name: input.name, version: input.version ?? null,
        file_name: input.fileName, blob_key: input.blob.key, size: input.blob.size, sha256: input.blob.sha256,
        sha1: input.blob.sha1, md5: input.blob.md5, detected_type: null, author_id: input.authorId, is_archived: 0,
        create_time: now, update_time: now,
      })
      .execute();
    return (await this.get(input.productId, id))!;
  }

  async get(productId: string, id: string): Promise<Image | undefined> {
    const row = await this.images().where('images.product_id', '=', productId).where('images.id', '=', id).executeTakeFirst();
    return row && toImage(row);
  }

  /** By id alone, for workers (no tenant in scope). */
  async getById(id: string): Promise<Image | undefined> {
    const row = await this.images().where('images.id', '=', id).executeTakeFirst();
    return row && toImage(row);
  }

  async list(productId: string): Promise<Image[]> {
    const rows = await this.images().where('images.product_id', '=', productId).orderBy('images.create_time', 'desc').orderBy('images.id', 'desc').execute();
    return rows.map(toImage);
  }

  async update(productId: string, id: string, patch: { name?: string; version?: string | null; isArchived?: boolean; detectedType?: string }): Promise<Image | undefined> {
    const values: Partial<Database['images']> = { update_time: nowIso() };
    if (patch.name !== undefined) values.name = patch.name;
    if (patch.version !== undefined) values.version = patch.version;
    if (patch.isArchived !== undefined) values.is_archived = patch.isArchived ? 1 : 0;
    if (patch.detectedType !== undefined) values.detected_type = patch.detectedType;
    await this.db.updateTable('images').set(values).where('product_id', '=', productId).where('id', '=', id).execute();
    return this.get(productId, id);
  }

  async createTempFile(input: { productId: string; orgId: string; authorId: string; expireTime: string }): Promise<TempFile> {
    const id = newId();
    await this.db
      .insertInto('temp_files')
      .values({
        id, product_id: input.productId, org_id: input.orgId, author_id: input.authorId, status: 'pending', blob_key: null,
        size: null, sha256: null, sha1: null, md5: null, expire_time: input.expireTime, create_time: nowIso(),
      })
      .execute();
    return { id, productId: input.productId, orgId: input.orgId, status: 'pending', expireTime: input.expireTime };
  }

  async getTempFile(productId: string, id: string): Promise<TempFile | undefined> {
    const r = await this.db.selectFrom('temp_files').selectAll().where('product_id', '=', productId).where('id', '=', id).executeTakeFirst();
    if (!r) return undefined;
    const blob = r.blob_key && r.sha256 && r.sha1 && r.md5
      ? { key: r.blob_key, size: Number(r.size), sha256: r.sha256, sha1: r.sha1, md5: r.md5 }
      : undefined;
    return { id: r.id, productId: r.product_id, orgId: r.org_id, status: r.status, blob, expireTime: r.expire_time };
  }

  /**
   * Commits a completed PUT, atomically: only while the temp file is open for upload (not finalized) and still
   * holds `replacing` (the upload this PUT found, null for none), so of concurrent PUTs exactly one commits and a
   * PUT racing with finalize either commits before it or not at all. False when it did not commit.
   */
  async commitUpload(id: string, replacing: string | null, blob: StoredBlob): Promise<boolean> {
    let update = this.db
      .updateTable('temp_files')
      .set({ status: 'uploaded', blob_key: blob.key, size: blob.size, sha256: blob.sha256, sha1: blob.sha1, md5: blob.md5 })
      .where('id', '=', id)
      .where('status', '!=', 'used');
    update = replacing === null ? update.where('blob_key', 'is', null) : update.where('blob_key', '=', replacing);
    const result = await update.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Claims an uploaded temp file for one image, atomically, and returns the upload it claimed (read in the same
   * statement, so a PUT committing meanwhile cannot swap it); undefined when it is not uploaded or already used.
   */
  async claimUpload(id: string): Promise<StoredBlob | undefined> {
    const r = await this.db
      .updateTable('temp_files')
      .set({ status: 'used' })
      .where('id', '=', id)
      .where('status', '=', 'uploaded')
      .returning(['blob_key', 'size', 'sha256', 'sha1', 'md5'])
      .executeTakeFirst();
    if (!r?.blob_key || !r.sha256 || !r.sha1 || !r.md5) return undefined;
    return { key: r.blob_key, size: Number(r.size), sha256: r.sha256, sha1: r.sha1, md5: r.md5 };
  }

  async addFile(input: { imageId: string; productId: string; filename: string; blob: StoredBlob; metadata: Record<string, unknown>; authorId: string }): Promise<ImageFile> {
    const id = newId();
    await this.db
      .insertInto('image_files')
      .values({
        id, image_id: input.imageId, product_id: input.productId, filename: input.filename, blob_key: input.blob.key,
        size: input.blob.size, sha256: input.blob.sha256, metadata: JSON.stringify(input.metadata), author_id: input.authorId,
        create_time: nowIso(),
      })
      .execute();
    return (await this.getFile(input.imageId, id))!;
  }

  private files() {
    return this.db.selectFrom('image_files').leftJoin('users as a', 'a.id', 'image_files.author_id').selectAll('image_files').select(authorSelection);
  }

  private toFile(r: Database['image_files'] & AuthorCols): ImageFile {
    return {
      id: r.id, imageId: r.image_id, productId: r.product_id, filename: r.filename, blobKey: r.blob_key, size: Number(r.size),
      sha256: r.sha256, metadata: JSON.parse(r.metadata) as Record<string, unknown>, createTime: r.create_time, author: toAuthor(r),
    };
  }

  async listFiles(imageId: string): Promise<ImageFile[]> {
    return (await this.listFilesOfImages([imageId])).get(imageId)!;
  }

  /** The attached files of several images in one query, oldest first within each image. */
  async listFilesOfImages(imageIds: string[]): Promise<Map<string, ImageFile[]>> {
    const out = new Map<string, ImageFile[]>(imageIds.map((id) => [id, []]));
    if (imageIds.length === 0) return out;
    const rows = await this.files().where('image_files.image_id', 'in', imageIds).orderBy('image_files.create_time').orderBy('image_files.id').execute();
    for (const row of rows) out.get(row.image_id)?.push(this.toFile(row));
    return out;
  }

  async getFile(imageId: string, id: string): Promise<ImageFile | undefined> {
    const row = await this.files().where('image_files.image_id', '=', imageId).where('image_files.id', '=', id).executeTakeFirst();
    return row && this.toFile(row);
  }
}
