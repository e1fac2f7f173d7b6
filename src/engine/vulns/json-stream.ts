// Streams a feed JSON document without holding it whole: the elements of a top-level `vulnerabilities` array
// (NVD API 2.0 pages, the KEV catalog) or of a top-level array come out one at a time; the root object's other
// properties come out at the end as a header (for a single record, the header IS the record).
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { JSONParser } from '@streamparser/json';
import { FormatError } from '../format-error.js';

export type JsonEvent =
  /** `header`: the root's properties that precede the array, read so far (a KEV catalog's date comes first). */
  | { kind: 'item'; index: number; value: unknown; header: Record<string, unknown> }
  | { kind: 'header'; value: Record<string, unknown> };

/** A file stream, decompressed when it starts with the gzip magic. */
export async function openMaybeGzip(path: string): Promise<Readable> {
  const head = await new Promise<Buffer>((resolve, reject) => {
    const s = createReadStream(path, { start: 0, end: 1 });
    const parts: Buffer[] = [];
    s.on('data', (d) => parts.push(d as Buffer));
    s.on('end', () => resolve(Buffer.concat(parts)));
    s.on('error', reject);
  });
  const file = createReadStream(path, { highWaterMark: 256 * 1024 });
  if (head[0] === 0x1f && head[1] === 0x8b) {
    const gunzip = createGunzip();
    file.on('error', (e) => gunzip.destroy(e));
    return file.pipe(gunzip);
  }
  return file;
}

export async function* streamJson(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<JsonEvent> {
  const parser = new JSONParser({ paths: ['$.vulnerabilities.*', '$.*'], keepStack: false });
  const queue: JsonEvent[] = [];
  const header: Record<string, unknown> = {};
  // what the items see: a copy of the header as it stood when they were read (renewed when a property arrives)
  let headerSoFar: Record<string, unknown> = {};
  let rootIsArray: boolean | undefined;
  let bytes = 0;
  let items = 0;
  parser.onValue = ({ value, key, parent, stack }) => {
    const inVulnerabilities = stack.length === 2 && stack[1]?.key === 'vulnerabilities' && Array.isArray(parent);
    if (stack.length === 1) rootIsArray ??= Array.isArray(parent);
    if (inVulnerabilities || (stack.length === 1 && Array.isArray(parent))) {
      queue.push({ kind: 'item', index: Number(key), value, header: headerSoFar });
      items++;
      // drop the emitted element so a long array never accumulates in memory
      (parent as unknown[]).pop();
    } else if (stack.length === 1 && typeof key === 'string') {
      if (!(key === 'vulnerabilities' && Array.isArray(value))) {
        header[key] = value;
        headerSoFar = { ...header };
      }
    }
  };
  try {
    for await (const chunk of chunks) {
      bytes += chunk.length;
      if (parser.isEnded) {
        if (chunk.toString().trim() !== '') throw new Error('data after the end of the JSON document');
        continue;
      }
      parser.write(chunk);
      while (queue.length > 0) yield queue.shift()!;
    }
    if (!parser.isEnded) parser.end();
  } catch (error) {
    while (queue.length > 0) yield queue.shift()!;
    const why = error instanceof Error ? error.message : String(error);
    throw new FormatError(`invalid or truncated JSON after ${bytes} bytes and ${items} items: ${why}`);
  }
  while (queue.length > 0) yield queue.shift()!;
  if (rootIsArray === undefined && Object.keys(header).length === 0 && items === 0) {
    throw new FormatError('empty JSON document');
  }
  if (!rootIsArray) yield { kind: 'header', value: header };
}
