// Cached, bounded access to one file for the identifiers that select it: the head is read once, the whole
// text only for small files, and large files are streamed in overlapping chunks.
import type { FileIndex } from '../file-index.js';
import type { ReadScratch } from '../file-read.js';
import type { FileNode } from '../types.js';
import { type FileView, MAX_WHOLE_READ } from './identifier.js';

export const CHUNK_SIZE = 8 * 1024 * 1024;
/** Overlap between chunks so a string straddling a boundary is seen whole (signature windows are smaller). */
export const CHUNK_OVERLAP = 4096;

/**
 * `scratch`: the whole of a file the index does not keep is read into it, so its bytes are valid only until the
 * next view's reads (the inventory makes one view at a time, and no identifier keeps a file's bytes). The chunks of
 * a larger file are read apart (a text() of the same view may hold the scratch).
 */
export function createFileView(index: FileIndex, node: FileNode, head: Buffer, scratch?: ReadScratch): FileView {
  let whole: Promise<Buffer> | undefined;
  const readWhole = (): Promise<Buffer> => {
    if (node.size > MAX_WHOLE_READ) return Promise.reject(new Error(`${node.path}: ${node.size} bytes is too large to read whole`));
    whole ??= index.read(node, scratch);
    return whole;
  };
  return {
    node,
    head: async () => head,
    text: async () => (await readWhole()).toString('utf8'),
    async *chunks() {
      if (node.size <= CHUNK_SIZE) {
        yield { offset: 0, data: await readWhole() };
        return;
      }
      for (let offset = 0; offset < node.size; offset += CHUNK_SIZE - CHUNK_OVERLAP) {
        const data = await index.readRange(node, offset, CHUNK_SIZE);
        if (data.length === 0) break;
        yield { offset, data };
        if (offset + data.length >= node.size) break;
      }
    },
  };
}
