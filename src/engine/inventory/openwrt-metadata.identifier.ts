// OpenWrt sysupgrade image manifests: fwtool appends metadata JSON (dist, version, revision, target, board)
// followed by a 16-byte trailer ('FWx0', CRC32, type, size) to the image; a signature chunk may follow it.
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { buildCpe } from '../cpe.js';
import { buildPurl } from '../purl.js';
import { withRevision } from './os-release.identifier.js';

const TRAILER = 16;
const MAGIC = 0x46577830; // 'FWx0'
const TYPE_INFO = 1;

interface FwMetadata {
  version?: { dist?: string; version?: string; revision?: string; target?: string; board?: string };
  supported_devices?: string[];
}

/** Walks the trailer chain from the end of the file; returns the metadata JSON text and its offset. */
async function readMetadata(file: FileView, ctx: IdentifierContext): Promise<{ json: string; offset: number } | undefined> {
  let end = file.node.size;
  for (let hop = 0; hop < 4 && end >= TRAILER; hop++) {
    const t = await ctx.index.readRange(file.node, end - TRAILER, TRAILER);
    if (t.length < TRAILER || t.readUInt32BE(0) !== MAGIC) return undefined;
    const type = t[8];
    const size = t.readUInt32BE(12);
    if (size < TRAILER || size > end || size > 1 << 20) return undefined;
    if (type === TYPE_INFO) {
      const offset = end - size;
      return { json: (await ctx.index.readRange(file.node, offset, size - TRAILER)).toString('utf8'), offset };
    }
    end -= size;
  }
  return undefined;
}

export const openwrtMetadataIdentifier: Identifier = {
  id: 'openwrt-metadata',
  description: 'OpenWrt sysupgrade fwtool metadata (method openwrt-fwtool-metadata)',
  // Only the uploaded image itself carries the trailer.
  selects: (node) => node.depth === 0 && node.size > TRAILER,
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    const found = await readMetadata(file, ctx);
    if (!found) return [];
    let meta: FwMetadata;
    try {
      // fwtool pads the chunk with NULs before the JSON.
      meta = JSON.parse(found.json.replace(/^[\0\s]+|[\0\s]+$/g, '')) as FwMetadata;
    } catch {
      ctx.note({ path: file.node.path, offset: found.offset, kind: 'warning', message: 'fwtool metadata is not valid JSON' });
      return [];
    }
    const v = meta.version;
    if (!v?.dist || !v.version) return [];
    const id = v.dist.toLowerCase().replace(/\s+/g, '');
    const version = withRevision(id, v.version, v.revision);
    const candidate: Candidate = {
      key: `os:${id === 'lede' ? 'openwrt' : id}`,
      name: id,
      version,
      matchVersion: version.toLowerCase(),
      type: 'operating-system',
      purl: buildPurl({ type: 'generic', name: id, version }),
      confidence: 0.9,
      path: file.node.path,
      primaryFile: false,
      evidence: {
        path: file.node.path,
        method: 'openwrt-fwtool-metadata',
        offset: found.offset,
        match: [`dist=${v.dist}`, `version=${v.version}`, v.revision && `revision=${v.revision}`, v.target && `target=${v.target}`, v.board && `board=${v.board}`].filter(Boolean).join('; '),
      },
    };
    if ((id === 'openwrt' || id === 'lede') && /^\d+(?:\.\d+)+$/.test(v.version)) candidate.cpe = buildCpe({ part: 'o', vendor: 'openwrt', product: 'openwrt', version: v.version });
    return [candidate];
  },
};
