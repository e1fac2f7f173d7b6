// Flattened device tree blobs (DTB), standalone or appended to kernels: the chunk is the blob, and the
// extraction is its source text (devicetree.dts) so that model, compatible strings and addresses are readable.
import { type ChunkInfo, type Handler, type Reader, type Sink } from '../../handler.js';
import { FDT_MAGIC, parseFdt, propString, readFdtHeader, toDts } from './fdt.js';

async function chunk(reader: Reader, start: number): Promise<ChunkInfo | null> {
  const h = await readFdtHeader(reader, start);
  if (!h) return null;
  const root = parseFdt(await reader.readExact(start, h.totalSize));
  const compatible = root.props.get('compatible');
  return {
    start,
    end: start + h.totalSize,
    meta: {
      version: h.version,
      model: propString(root, 'model'),
      compatible: compatible ? compatible.value.subarray(0, -1).toString('latin1').split('\0') : undefined,
    },
  };
}

async function extract(reader: Reader, info: ChunkInfo, sink: Sink): Promise<void> {
  const root = parseFdt(await reader.readExact(info.start, info.end - info.start));
  await sink.file('devicetree.dts', Buffer.from(`/dts-v1/;\n\n${toDts(root)}\n`), { meta: { model: info.meta?.model, compatible: info.meta?.compatible } });
}

export const deviceTreeHandler: Handler = {
  id: 'device-tree',
  kind: 'firmware',
  doc: {
    title: 'Flattened device tree blob (DTB)',
    references: ['Devicetree Specification v0.4, chapter 5 (flattened format)', 'dtc / libfdt'],
    limitations: ['The source text is printed without phandle labels or /memreserve/ entries'],
  },
  magics: [{ bytes: FDT_MAGIC }],
  confidence: 60,
  chunk,
  extract,
};
