// U-Boot FIT images: a device tree whose /images node holds the kernel, ramdisk, device trees, firmware...
// either inline ('data') or after the tree ('data-offset' from the 4-byte aligned end of the blob, or
// 'data-position' from its start). Each image is written under its node name with its description, type,
// architecture, compression and addresses; hash subnodes (crc32, md5, sha1, sha256, sha512) are verified.
import { createHash } from 'node:crypto';
import { FormatError } from '../../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import { crc32Range, hashRange, safeName } from '../common.js';
import { FDT_MAGIC, parseFdt, propString, propU32, readFdtHeader, toDts, type FdtNode } from './fdt.js';

const EXTENSIONS: Record<string, string> = { gzip: '.gz', bzip2: '.bz2', lzma: '.lzma', lzo: '.lzo', lz4: '.lz4', zstd: '.zst' };

interface FitImage {
  name: string;
  start: number;
  end: number;
  hashes: Array<{ algo: string; value: string }>;
  meta: Record<string, unknown>;
}

function images(root: FdtNode, start: number, totalSize: number): FitImage[] {
  const node = root.children.find((c) => c.name === 'images');
  if (!node) return [];
  const external = start + Math.ceil(totalSize / 4) * 4;
  return node.children.map((image) => {
    const data = image.props.get('data');
    const size = propU32(image, 'data-size');
    const offset = propU32(image, 'data-offset');
    const position = propU32(image, 'data-position');
    let from: number;
    let to: number;
    if (data) [from, to] = [start + data.offset, start + data.offset + data.value.length];
    else if (size !== undefined && offset !== undefined) [from, to] = [external + offset, external + offset + size];
    else if (size !== undefined && position !== undefined) [from, to] = [start + position, start + position + size];
    else throw new FormatError(`FIT image '${image.name}' has no data`);
    const hashes = image.children
      .filter((c) => /^hash([-@]|$)/.test(c.name) && propString(c, 'algo') && c.props.get('value'))
      .map((c) => ({ algo: propString(c, 'algo')!, value: c.props.get('value')!.value.toString('hex') }));
    return {
      name: image.name,
      start: from,
      end: to,
      hashes,
      meta: {
        description: propString(image, 'description'),
        type: propString(image, 'type'),
        arch: propString(image, 'arch'),
        os: propString(image, 'os'),
        compression: propString(image, 'compression'),
        load: propU32(image, 'load'),
        entry: propU32(image, 'entry'),
      },
    };
  });
}

async function chunk(reader: Reader, start: number): Promise<ChunkInfo | null> {
  const h = await readFdtHeader(reader, start);
  if (!h) return null;
  const root = parseFdt(await reader.readExact(start, h.totalSize));
  const list = images(root, start, h.totalSize);
  if (list.length === 0) return null; // a plain device tree
  let end = start + h.totalSize;
  for (const image of list) {
    if (image.end > reader.size) throw new FormatError(`FIT image '${image.name}': truncated, data ends past the file (${reader.size})`);
    end = Math.max(end, image.end);
  }
  // mkimage pads external data to 4 bytes: take the zero padding into the chunk.
  const pad = Math.ceil((end - start) / 4) * 4 - (end - start);
  if (pad && end + pad <= reader.size && (await reader.read(end, pad)).every((b) => b === 0)) end += pad;
  const configs = root.children.find((c) => c.name === 'configurations');
  return {
    start,
    end,
    meta: { description: propString(root, 'description'), defaultConfig: propString(configs, 'default'), images: list.map((i) => i.name), totalSize: h.totalSize },
  };
}

async function digest(reader: Reader, algo: string, from: number, to: number): Promise<string | undefined> {
  if (algo === 'crc32') return (await crc32Range(reader, from, to)).toString(16).padStart(8, '0');
  if (!['md5', 'sha1', 'sha256', 'sha384', 'sha512'].includes(algo)) return undefined;
  return (await hashRange(reader, createHash(algo), from, to)).digest('hex');
}

async function extract(reader: Reader, info: ChunkInfo, sink: Sink): Promise<void> {
  const totalSize = info.meta!.totalSize as number;
  const root = parseFdt(await reader.readExact(info.start, totalSize));
  await sink.file('fit.its', Buffer.from(`/dts-v1/;\n\n${toDts(root)}\n`));
  const taken = new Set<string>();
  for (const image of images(root, info.start, totalSize)) {
    for (const { algo, value } of image.hashes) {
      const actual = await digest(reader, algo, image.start, image.end);
      if (actual !== undefined && actual !== value) sink.problem('warning', `FIT image '${image.name}': ${algo} hash mismatch`, image.start);
    }
    let name = `${safeName(image.name, 'image')}${EXTENSIONS[String(image.meta.compression)] ?? ''}`;
    if (name === 'fit.its' || taken.has(name)) name = `${taken.size}-${name}`;
    taken.add(name);
    await sink.copy(name, reader, image.start, image.end, { meta: image.meta });
  }
}

export const fitHandler: Handler = {
  id: 'fit',
  kind: 'firmware',
  doc: {
    title: 'U-Boot Flattened Image Tree (FIT)',
    references: ['U-Boot doc/usage/fit/source_file_format.rst', 'U-Boot boot/image-fit.c', 'Devicetree Specification v0.4'],
    limitations: ['Signatures of signed configurations are not verified (their hashes are)'],
  },
  magics: [{ bytes: FDT_MAGIC }],
  confidence: 85,
  chunk,
  extract,
};
