// The parts of a ScanResult that are not rows (the files tree, unknown chunks, problems, stats, summary, image
// info) as one gzipped JSON blob per scan: a tree can hold 100k nodes, which the API never queries row by row.
// Reports are generated from it, so it keeps the summary (complete or not, and why). The problems are also
// stored as rows (ScanRepository.setOutcome) for the API to page and filter.
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { createGzip, gunzipSync } from 'node:zlib';
import type { ScanResult } from '../engine/types.js';
import type { BlobStore } from '../store/blob-store.js';

export type ResultDocument = Omit<ScanResult, 'components' | 'findings' | 'cryptoAssets'>;

export async function writeResultDocument(blobs: BlobStore, scanId: string, result: ScanResult): Promise<string> {
  const document: ResultDocument = {
    engineVersion: result.engineVersion, image: result.image, files: result.files, unknownChunks: result.unknownChunks,
    problems: result.problems, stats: result.stats, ...(result.summary ? { summary: result.summary } : {}),
  };
  const key = `results/${scanId}.json.gz`;
  await blobs.write(key, Readable.from([JSON.stringify(document)]).pipe(createGzip()));
  return key;
}

export async function readResultDocument(blobs: BlobStore, key: string): Promise<ResultDocument> {
  const compressed = await buffer(await blobs.read(key));
  return JSON.parse(gunzipSync(compressed).toString('utf8')) as ResultDocument;
}
