// Test-only SquashFS 3.1 writer (no Debian tool makes SquashFS 3 any more), written from squashfs_compat.h:
// packed bitfield inodes in either byte order, raw uid/gid tables, fragments, hard links (one inode listed
// twice), extended directory and file inodes, and block codecs zlib / LZMA-alone / LZMA props+raw / bare raw LZMA / mixed
// (sqlzma). Images it makes are cross-checked with 7-Zip's independent SquashFS reader in the tests.
import zlib from 'node:zlib';
import { lzma } from '../../../../src/engine/unpack/codecs/blocks.js';

export interface V3Entry {
  path: string;
  kind: 'file' | 'dir' | 'symlink' | 'hardlink' | 'device' | 'fifo' | 'socket';
  mode: number;
  content?: Buffer;
  /** Symlink target, or the path of the file a hard link names. */
  target?: string;
  uid?: number;
  gid?: number;
  rdev?: number;
}

export type V3Codec = 'zlib' | 'lzma-alone' | 'lzma-props5' | 'lzma-raw' | 'mixed';

export interface V3Options {
  endian: 'le' | 'be';
  codec: V3Codec;
  blockSize?: number;
  lzmaMagic?: boolean;
  mtime?: number;
}

function setBits(buf: Buffer, pos: number, width: number, value: number, endian: 'le' | 'be'): void {
  for (let i = 0; i < width; i++) {
    // Bit i of the value, counted from its least significant bit.
    const bit = Math.floor(value / 2 ** i) % 2;
    const at = endian === 'le' ? pos + i : pos + width - 1 - i;
    const shift = endian === 'le' ? at & 7 : 7 - (at & 7);
    if (bit) buf[at >> 3] = buf[at >> 3]! | (1 << shift);
  }
}

function packed(size: number, endian: 'le' | 'be', fields: Array<[number, number, number]>): Buffer {
  const buf = Buffer.alloc(size);
  for (const [pos, width, value] of fields) setBits(buf, pos, width, value, endian);
  return buf;
}

async function lzmaAloneEncode(data: Buffer): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const parts: Buffer[] = [];
    const enc = lzma().createStream('aloneEncoder', { preset: 1 });
    enc.on('data', (c: Buffer) => parts.push(c)).on('end', () => resolve(Buffer.concat(parts))).on('error', reject);
    enc.end(data);
  });
}

async function compress(codec: V3Codec, data: Buffer, counter: { n: number }): Promise<Buffer> {
  const pick = codec === 'mixed' ? (counter.n++ % 2 === 0 ? 'zlib' : 'lzma-alone') : codec;
  if (pick === 'zlib') return zlib.deflateSync(data);
  const alone = await lzmaAloneEncode(data);
  if (pick === 'lzma-alone') return alone;
  if (pick === 'lzma-raw') return alone.subarray(13); // preset 1 uses lc=3, lp=0, pb=2
  return Buffer.concat([alone.subarray(0, 5), alone.subarray(13)]);
}

/** Compressed unless that does not shrink it; the size word has `storedBit` set when stored as is. */
export async function squash(codec: V3Codec, raw: Buffer, storedBit: number, counter = { n: 0 }): Promise<{ body: Buffer; word: number }> {
  const packedData = await compress(codec, raw, counter);
  return packedData.length < raw.length ? { body: packedData, word: packedData.length } : { body: raw, word: raw.length | storedBit };
}

/** Metadata table writer (SquashFS 1.x to 3.x): 8 KiB blocks, each behind a 16-bit header (bit 15 = stored uncompressed). */
export class MetaWriter {
  readonly blocks: Buffer[] = [];
  readonly blockStarts: number[] = [];
  private pending = Buffer.alloc(0);
  private written = 0;

  constructor(
    private readonly endian: 'le' | 'be',
    private readonly codec: V3Codec,
    private readonly counter = { n: 0 },
  ) {}

  ref(): { block: number; offset: number } {
    return { block: this.written, offset: this.pending.length };
  }

  async write(data: Buffer): Promise<void> {
    this.pending = Buffer.concat([this.pending, data]);
    while (this.pending.length >= 8192) await this.flush(8192);
  }

  async finish(): Promise<Buffer> {
    if (this.pending.length > 0) await this.flush(this.pending.length);
    return Buffer.concat(this.blocks);
  }

  private async flush(n: number): Promise<void> {
    const { body, word } = await squash(this.codec, this.pending.subarray(0, n), 0x8000, this.counter);
    this.pending = this.pending.subarray(n);
    const header = Buffer.alloc(2);
    if (this.endian === 'le') header.writeUInt16LE(word);
    else header.writeUInt16BE(word);
    this.blockStarts.push(this.written);
    this.blocks.push(header, body);
    this.written += 2 + body.length;
  }
}

export async function writeSquashfsV3(entries: V3Entry[], opts: V3Options): Promise<Buffer> {
  const e = opts.endian;
  const bs = opts.blockSize ?? 4096;
  const mtime = opts.mtime ?? 1_200_000_000;
  const counter = { n: 0 };
  const u32 = (v: number): Buffer => { const b = Buffer.alloc(4); if (e === 'le') b.writeUInt32LE(v); else b.writeUInt32BE(v); return b; };
  const u64 = (v: number): Buffer => { const b = Buffer.alloc(8); if (e === 'le') b.writeBigUInt64LE(BigInt(v)); else b.writeBigUInt64BE(BigInt(v)); return b; };

  const children = new Map<string, V3Entry[]>([['', []]]);
  for (const entry of entries) {
    if (entry.kind === 'dir') children.set(entry.path, children.get(entry.path) ?? []);
    const slash = entry.path.lastIndexOf('/');
    const parent = slash === -1 ? '' : entry.path.slice(0, slash);
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent)!.push(entry);
  }
  for (const list of children.values()) list.sort((a, b) => (a.path < b.path ? -1 : 1));
  const ids: number[] = [];
  const idIndex = (id: number): number => (ids.includes(id) ? ids.indexOf(id) : ids.push(id) - 1);

  const data: Buffer[] = [Buffer.alloc(119)];
  let pos = 119;
  const fragments: Array<{ start: number; word: number }> = [];
  let fragBuf = Buffer.alloc(0);
  const flushFragment = async (): Promise<void> => {
    if (fragBuf.length === 0) return;
    const { body, word } = await squash(opts.codec, fragBuf, 1 << 24, counter);
    fragments.push({ start: pos, word });
    data.push(body);
    pos += body.length;
    fragBuf = Buffer.alloc(0);
  };
  // Data first (blocks then tails into fragments), remembering where each file's blocks went.
  const fileData = new Map<string, { start: number; words: number[]; fragment: number; offset: number }>();
  for (const entry of entries) {
    if (entry.kind !== 'file') continue;
    const content = entry.content!;
    const full = Math.floor(content.length / bs);
    const start = pos;
    const words: number[] = [];
    for (let i = 0; i < full; i++) {
      const raw = content.subarray(i * bs, (i + 1) * bs);
      if (raw.every((b) => b === 0)) { words.push(0); continue; }
      const { body, word } = await squash(opts.codec, raw, 1 << 24, counter);
      words.push(word);
      data.push(body);
      pos += body.length;
    }
    const tail = content.subarray(full * bs);
    let fragment = 0xffffffff;
    let offset = 0;
    if (tail.length > 0) {
      if (fragBuf.length + tail.length > bs) await flushFragment();
      fragment = fragments.length;
      offset = fragBuf.length;
      fragBuf = Buffer.concat([fragBuf, tail]);
    }
    fileData.set(entry.path, { start, words, fragment, offset });
  }
  await flushFragment();

  const inodeW = new MetaWriter(opts.endian, opts.codec, counter);
  const dirW = new MetaWriter(opts.endian, opts.codec, counter);
  let nextNumber = 1;
  const written = new Map<string, { ref: { block: number; offset: number }; number: number; type: number }>();
  const linkCount = new Map<string, number>();
  for (const entry of entries) if (entry.kind === 'hardlink') linkCount.set(entry.target!, (linkCount.get(entry.target!) ?? 1) + 1);

  const base = (type: number, entry: { mode: number; uid?: number; gid?: number }, number: number): Array<[number, number, number]> => {
    const uid = entry.uid ?? 0;
    const gid = entry.gid ?? 0;
    return [[0, 4, type], [4, 12, entry.mode & 0o7777], [16, 8, idIndex(uid)], [24, 8, gid === uid ? 255 : idIndex(gid)], [32, 32, mtime], [64, 32, number]];
  };
  const writeLeaf = async (entry: V3Entry): Promise<{ ref: { block: number; offset: number }; number: number; type: number }> => {
    if (entry.kind === 'hardlink') return written.get(entry.target!)!;
    const number = nextNumber++;
    const ref = inodeW.ref();
    let type: number;
    if (entry.kind === 'file') {
      const f = fileData.get(entry.path)!;
      const size = entry.content!.length;
      const blockList = Buffer.concat(f.words.map(u32));
      if (linkCount.has(entry.path)) {
        type = 9;
        await inodeW.write(Buffer.concat([packed(40, e, [...base(9, entry, number), [96, 32, linkCount.get(entry.path)!], [128, 64, f.start], [192, 32, f.fragment], [224, 32, f.offset], [256, 64, size]]), blockList]));
      } else {
        type = 2;
        await inodeW.write(Buffer.concat([packed(32, e, [...base(2, entry, number), [96, 64, f.start], [160, 32, f.fragment], [192, 32, f.offset], [224, 32, size]]), blockList]));
      }
    } else if (entry.kind === 'symlink') {
      type = 3;
      const target = Buffer.from(entry.target!);
      await inodeW.write(Buffer.concat([packed(18, e, [...base(3, entry, number), [96, 32, 1], [128, 16, target.length]]), target]));
    } else if (entry.kind === 'device') {
      type = 5;
      await inodeW.write(packed(18, e, [...base(5, entry, number), [96, 32, 1], [128, 16, entry.rdev!]]));
    } else {
      type = entry.kind === 'fifo' ? 6 : 7;
      await inodeW.write(packed(16, e, [...base(type, entry, number), [96, 32, 1]]));
    }
    const done = { ref, number, type };
    written.set(entry.path, done);
    return done;
  };

  const writeDir = async (path: string, entry: { mode: number; uid?: number; gid?: number }, parentNumber: number): Promise<{ ref: { block: number; offset: number }; number: number; type: number }> => {
    const number = nextNumber++;
    const listing: Array<{ name: string; ref: { block: number; offset: number }; number: number; type: number }> = [];
    for (const child of children.get(path) ?? []) {
      const name = child.path.slice(child.path.lastIndexOf('/') + 1);
      const r = child.kind === 'dir' ? await writeDir(child.path, child, number) : await writeLeaf(child);
      listing.push({ name, ...r });
    }
    const dirRef = dirW.ref();
    const parts: Buffer[] = [];
    for (let i = 0; i < listing.length; ) {
      const run = [listing[i]!];
      while (i + run.length < listing.length && run.length < 256 && listing[i + run.length]!.ref.block === run[0]!.ref.block) run.push(listing[i + run.length]!);
      parts.push(packed(9, e, [[0, 8, run.length - 1], [8, 32, run[0]!.ref.block], [40, 32, run[0]!.number]]));
      for (const item of run) {
        const name = Buffer.from(item.name);
        const delta = (item.number - run[0]!.number) & 0xffff;
        parts.push(packed(5, e, [[0, 13, item.ref.offset], [13, 3, item.type === 9 ? 2 : item.type === 8 ? 1 : item.type], [16, 8, name.length - 1], [24, 16, delta]]), name);
      }
      i += run.length;
    }
    const listingBytes = Buffer.concat(parts);
    await dirW.write(listingBytes);
    const ref = inodeW.ref();
    const size = listingBytes.length + 3;
    if (size < 256) {
      await inodeW.write(packed(28, e, [...base(1, entry, number), [96, 32, 2], [128, 19, size], [147, 13, dirRef.offset], [160, 32, dirRef.block], [192, 32, parentNumber]]));
    } else {
      await inodeW.write(packed(31, e, [...base(8, entry, number), [96, 32, 2], [128, 27, size], [155, 13, dirRef.offset], [168, 32, dirRef.block], [200, 16, 0], [216, 32, parentNumber]]));
    }
    return { ref, number, type: 1 };
  };

  const root = await writeDir('', { mode: 0o755 }, 0);
  const inodeTable = await inodeW.finish();
  const dirTable = await dirW.finish();
  const inodeStart = pos;
  const dirStart = inodeStart + inodeTable.length;
  const fragW = new MetaWriter(opts.endian, opts.codec, counter);
  for (const f of fragments) await fragW.write(Buffer.concat([u64(f.start), u32(f.word), u32(0)]));
  const fragTable = await fragW.finish();
  const fragEntriesStart = dirStart + dirTable.length;
  const fragIndex = Buffer.concat(fragW.blockStarts.map((b) => u64(fragEntriesStart + b)));
  const fragIndexStart = fragEntriesStart + fragTable.length;
  const uidStart = fragIndexStart + fragIndex.length;
  const uidTable = Buffer.concat(ids.map(u32));
  const guidStart = uidStart + uidTable.length;
  const guidTable = uidTable;
  const bytesUsed = guidStart + guidTable.length;

  const sb = Buffer.alloc(119);
  const magic = opts.lzmaMagic ? (e === 'le' ? 'shsq' : 'qshs') : e === 'le' ? 'hsqs' : 'sqsh';
  sb.write(magic, 0, 'latin1');
  const w32 = (at: number, v: number) => (e === 'le' ? sb.writeUInt32LE(v >>> 0, at) : sb.writeUInt32BE(v >>> 0, at));
  const w16 = (at: number, v: number) => (e === 'le' ? sb.writeUInt16LE(v, at) : sb.writeUInt16BE(v, at));
  const w64 = (at: number, v: bigint) => (e === 'le' ? sb.writeBigUInt64LE(v, at) : sb.writeBigUInt64BE(v, at));
  w32(4, nextNumber - 1);
  w32(8, bytesUsed);
  w32(12, uidStart);
  w32(16, guidStart);
  w32(20, inodeStart);
  w32(24, dirStart);
  w16(28, 3);
  w16(30, 1);
  w16(32, bs & 0xffff);
  w16(34, Math.log2(bs));
  sb[36] = 0;
  sb[37] = ids.length;
  sb[38] = ids.length;
  w32(39, mtime);
  w64(43, BigInt(root.ref.block * 65536 + root.ref.offset));
  w32(51, bs);
  w32(55, fragments.length);
  w32(59, fragIndexStart);
  w64(63, BigInt(bytesUsed));
  w64(71, BigInt(uidStart));
  w64(79, BigInt(guidStart));
  w64(87, BigInt(inodeStart));
  w64(95, BigInt(dirStart));
  w64(103, BigInt(fragIndexStart));
  w64(111, 0xffffffffffffffffn);
  data[0] = sb;
  const image = Buffer.concat([...data, inodeTable, dirTable, fragTable, fragIndex, uidTable, guidTable]);
  const padded = Buffer.alloc(Math.ceil(image.length / 4096) * 4096);
  image.copy(padded);
  return padded;
}
