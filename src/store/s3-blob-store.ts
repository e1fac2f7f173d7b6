// BlobStore on an S3-compatible bucket (AWS S3, MinIO, Ceph, R2), chosen by FIRMSCOPE_BLOB_URL=s3://bucket/prefix.
// Writes stream through the hashes into a multipart upload (lib-storage: one PutObject when small, parts of
// PART_BYTES otherwise), so nothing holds a whole blob; reads stream; the engine's local copy is downloaded into the
// scan's work folder, so workers need no shared disk. Clients upload images straight to the bucket with a
// pre-signed PUT (directUploads), and finalize adopts the object by HEAD, a server-side copy and one hash pass.
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  CompleteMultipartUploadCommand, CopyObjectCommand, CreateMultipartUploadCommand, DeleteObjectCommand, GetObjectCommand,
  HeadObjectCommand, AbortMultipartUploadCommand, PutObjectCommand, S3Client, UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { NotFoundError, TooLargeError } from '../errors.js';
import { assertBlobKey, hashingStream, hashStream, type BlobStore, type ByteRange, type DirectUploads, type StoredBlob, type WriteOptions } from './blob-store.js';

/** Multipart part size of writes (S3's minimum part is 5 MiB). */
const PART_BYTES = 8 * 1024 ** 2;
/** Largest object CopyObject copies in one request; larger ones are copied in parts. */
const SINGLE_COPY_BYTES = 5 * 1024 ** 3;
const COPY_PART_BYTES = 512 * 1024 ** 2;

export interface S3Location {
  bucket: string;
  /** Key prefix without leading or trailing '/'; '' for the bucket's root. */
  prefix: string;
}

export interface S3Settings extends S3Location {
  /** Endpoint of an S3-compatible service; absent means AWS (region from the SDK's default chain). */
  endpoint?: string;
  forcePathStyle?: boolean;
}

export function s3Client(settings: Pick<S3Settings, 'endpoint' | 'forcePathStyle'>): S3Client {
  return new S3Client({
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.forcePathStyle ?? false,
    // Otherwise the SDK sends streamed uploads with aws-chunked framing and trailing checksums, which some
    // S3-compatible servers store as the object's bytes.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

const missing = (error: unknown): boolean => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
};

export class S3BlobStore implements BlobStore {
  readonly directUploads: DirectUploads;

  constructor(private readonly client: S3Client, private readonly location: S3Location) {
    this.directUploads = {
      putUrl: (key, expiresSeconds) => {
        assertBlobKey(key);
        return getSignedUrl(this.client, new PutObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }), { expiresIn: expiresSeconds });
      },
      adopt: (uploadKey, finalKey, maxBytes) => this.adopt(uploadKey, finalKey, maxBytes),
    };
  }

  private objectKey(key: string): string {
    assertBlobKey(key);
    return this.location.prefix ? `${this.location.prefix}/${key}` : key;
  }

  async write(key: string, source: Readable | Buffer, options: WriteOptions = {}): Promise<StoredBlob> {
    const hashing = hashingStream(options.maxBytes);
    const body = new PassThrough();
    const input = Buffer.isBuffer(source) ? Readable.from([source]) : source;
    const piping = pipeline(input, hashing.stream, body);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.location.bucket, Key: this.objectKey(key), Body: body },
      partSize: PART_BYTES,
      queueSize: 2,
      leavePartsOnError: false,
    });
    const [piped, uploaded] = await Promise.allSettled([piping, upload.done().catch((error: unknown) => {
      body.destroy(error as Error);
      throw error;
    })]);
    // the input's own error (too large, a broken client stream) says more than the upload's "stream ended"
    if (piped.status === 'rejected') {
      if (uploaded.status === 'fulfilled') await this.delete(key);
      throw piped.reason;
    }
    if (uploaded.status === 'rejected') throw uploaded.reason;
    return hashing.result(key);
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const response = await this.client.send(new GetObjectCommand({
        Bucket: this.location.bucket, Key: this.objectKey(key), Range: range ? `bytes=${range.start}-${range.end ?? ''}` : undefined,
      }));
      return response.Body as Readable;
    } catch (error) {
      if (missing(error)) throw new NotFoundError(`blob '${key}' does not exist`);
      throw error;
    }
  }

  async localPath(key: string, workDir: string): Promise<string> {
    const path = join(workDir, `blob-${key.replaceAll('/', '_')}`);
    await mkdir(workDir, { recursive: true });
    try {
      await pipeline(await this.read(key), createWriteStream(path));
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
    return path;
  }

  async size(key: string): Promise<number | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
      return head.ContentLength;
    } catch (error) {
      if (missing(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
  }

  private async adopt(uploadKey: string, finalKey: string, maxBytes: number): Promise<StoredBlob | undefined> {
    const size = await this.size(uploadKey);
    if (size === undefined) return undefined;
    if (size > maxBytes) {
      await this.delete(uploadKey);
      throw new TooLargeError(`upload is larger than the limit of ${maxBytes} bytes`);
    }
    // the copy is what the image keeps: the pre-signed URL can still overwrite the upload's own key until it expires
    await this.copy(uploadKey, finalKey, size);
    try {
      const blob = await hashStream(await this.read(finalKey), finalKey);
      await this.delete(uploadKey);
      return blob;
    } catch (error) {
      await this.delete(finalKey).catch(() => {});
      throw error;
    }
  }

  private async copy(from: string, to: string, size: number): Promise<void> {
    const Bucket = this.location.bucket;
    const CopySource = `${Bucket}/${this.objectKey(from)}`;
    if (size <= SINGLE_COPY_BYTES) {
      await this.client.send(new CopyObjectCommand({ Bucket, Key: this.objectKey(to), CopySource }));
      return;
    }
    const { UploadId } = await this.client.send(new CreateMultipartUploadCommand({ Bucket, Key: this.objectKey(to) }));
    try {
      const parts: Array<{ ETag?: string; PartNumber: number }> = [];
      for (let start = 0, PartNumber = 1; start < size; start += COPY_PART_BYTES, PartNumber++) {
        const end = Math.min(size, start + COPY_PART_BYTES) - 1;
        const part = await this.client.send(new UploadPartCopyCommand({
          Bucket, Key: this.objectKey(to), UploadId, PartNumber, CopySource, CopySourceRange: `bytes=${start}-${end}`,
        }));
        parts.push({ ETag: part.CopyPartResult?.ETag, PartNumber });
      }
      await this.client.send(new CompleteMultipartUploadCommand({ Bucket, Key: this.objectKey(to), UploadId, MultipartUpload: { Parts: parts } }));
    } catch (error) {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket, Key: this.objectKey(to), UploadId })).catch(() => {});
      throw error;
    }
  }
}
