// JFFS2 extended attributes (Linux fs/jffs2/xattr.c): an xattr node holds one name/value pair ("datum", id xid,
// newest version wins, version 0xFFFFFFFF deletes it) and xref nodes bind a datum to an inode (newest sequence
// number per inode and datum wins; an odd one is a deletion). The name is a namespace prefix number plus the rest.
import { jffs2Crc, Layouts, type Endian } from './nodes.js';

const PREFIXES: Record<number, string> = {
  1: 'user.',
  2: 'security.',
  3: 'system.posix_acl_access',
  4: 'system.posix_acl_default',
  5: 'trusted.',
};
const DATUM_DELETED = 0xffffffff;
const XREF_DELETED = 1;

interface Datum {
  version: number;
  name: string;
  value: Buffer;
}

export class Jffs2Xattrs {
  private readonly datums = new Map<number, Datum | null>();
  private readonly versions = new Map<number, number>();
  /** ino → xid → newest xref sequence number */
  private readonly refs = new Map<number, Map<number, number>>();

  constructor(private readonly endian: Endian) {}

  /** Adds an xattr node; false when its CRCs or lengths are wrong. */
  addDatum(raw: Buffer): boolean {
    const L = Layouts[this.endian].xattr;
    if (raw.length < L.size) return false;
    const node = L.parse(raw);
    const dataEnd = L.size + node.nameLen + 1 + node.valueLen;
    if (jffs2Crc(raw.subarray(0, L.size - 4)) !== node.nodeCrc || dataEnd > raw.length) return false;
    if (jffs2Crc(raw.subarray(L.size, dataEnd)) !== node.dataCrc) return false;
    if ((this.versions.get(node.xid) ?? -1) >= node.version && node.version !== DATUM_DELETED) return true;
    this.versions.set(node.xid, node.version);
    if (node.version === DATUM_DELETED) {
      this.datums.set(node.xid, null);
      return true;
    }
    const prefix = PREFIXES[node.xprefix] ?? `unknown-namespace-${node.xprefix}.`;
    const name = prefix + raw.toString('utf8', L.size, L.size + node.nameLen);
    this.datums.set(node.xid, { version: node.version, name, value: Buffer.from(raw.subarray(L.size + node.nameLen + 1, dataEnd)) });
    return true;
  }

  /** Adds an xref node; false when its CRC is wrong. */
  addRef(raw: Buffer): boolean {
    const L = Layouts[this.endian].xref;
    if (raw.length < L.size) return false;
    const node = L.parse(raw);
    if (jffs2Crc(raw.subarray(0, L.size - 4)) !== node.nodeCrc) return false;
    let refs = this.refs.get(node.ino);
    if (!refs) this.refs.set(node.ino, (refs = new Map()));
    if (node.xseqno >= (refs.get(node.xid) ?? 0)) refs.set(node.xid, node.xseqno);
    return true;
  }

  /** The live attributes of an inode, name → value. */
  of(ino: number): Array<[string, Buffer]> {
    const out: Array<[string, Buffer]> = [];
    for (const [xid, seq] of this.refs.get(ino) ?? []) {
      if (seq & XREF_DELETED) continue;
      const datum = this.datums.get(xid);
      if (datum) out.push([datum.name, datum.value]);
    }
    return out;
  }
}
