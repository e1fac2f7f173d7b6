// Test-only SquashFS 2.1 and 1.0 writer: no tool on Debian makes SquashFS 1 or 2 (mksquashfs 2.x is long gone), so
// the tests build images byte by byte from squashfs_compat.h (layouts 1.x and 2.x): packed bitfield inodes in either
// byte order (written here as one big integer per structure, a different formulation from the reader's bit walk),
// zlib metadata and data blocks, 4-byte directory headers, raw uid/gid tables, hard links (one inode listed twice);
// for 2.x fragments behind 32-bit index pointers, extended directory inodes and sparse blocks; for 1.x 16-bit block
// sizes, uid indexes above 15 folded into the inode type, and fifos and sockets as the IPC inode.
import { MetaWriter, squash, type V3Entry } from './squashfs-v3-writer.js';

/** An entry as the 3.x test writer takes it, with its own mtime (2.x keeps one on files and directories). */
export type V2Entry = V3Entry & { mtime?: number };

export interface V2Options {
  endian: 'le' | 'be';
  /** 1: the 1.0 layout (no fragments, so `noFragments` is implied). Default 2. */
  major?: 1 | 2;
  blockSize?: number;
  /** Store file tails as short last blocks instead of in fragments. */
  noFragments?: boolean;
  /** Block compression: zlib (the standard), or the vendor LZMA layouts of old Broadcom-era images. Default zlib. */
  codec?: V2Codec;
  mkfsTime?: number;
}

export type V2Codec = 'zlib' | 'lzma-alone' | 'lzma-props5';

type Field = [pos: number, width: number, value: number];

/** A packed structure of `size` bytes: little-endian bit order, or big-endian with bit 0 the MSB of byte 0. */
function pack(size: number, endian: 'le' | 'be', fields: Field[]): Buffer {
  let v = 0n;
  for (const [pos, width, value] of fields) v |= BigInt(value) << BigInt(endian === 'le' ? pos : size * 8 - pos - width);
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i++) out[endian === 'le' ? i : size - 1 - i] = Number((v >> BigInt(8 * i)) & 0xffn);
  return out;
}

const TYPE = { dir: 1, file: 2, symlink: 3, device: 5, fifo: 6, socket: 7 } as const;
const SUPER = 63;

export async function writeSquashfsV2(entries: V2Entry[], opts: V2Options): Promise<Buffer> {
  const e = opts.endian;
  const v1 = opts.major === 1;
  const codec = opts.codec ?? 'zlib';
  const bs = opts.blockSize ?? 4096;
  const mkfsTime = opts.mkfsTime ?? 1_100_000_000;
  const word32 = (v: number): Buffer => pack(4, e, [[0, 32, v]]);

  const children = new Map<string, V2Entry[]>([['', []]]);
  for (const entry of entries) {
    const parent = entry.path.includes('/') ? entry.path.slice(0, entry.path.lastIndexOf('/')) : '';
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent)!.push(entry);
    if (entry.kind === 'dir' && !children.has(entry.path)) children.set(entry.path, []);
  }
  for (const list of children.values()) list.sort((a, b) => (a.path < b.path ? -1 : 1));
  const ids: number[] = [];
  const idIndex = (id: number): number => (ids.includes(id) ? ids.indexOf(id) : ids.push(id) - 1);

  // Data: each file's blocks, its tail into the current fragment (or a short last block).
  const data: Buffer[] = [];
  let pos = SUPER;
  const put = (b: Buffer): number => {
    data.push(b);
    pos += b.length;
    return pos - b.length;
  };
  const fragments: Array<{ start: number; word: number }> = [];
  let fragment = Buffer.alloc(0);
  const closeFragment = async (): Promise<void> => {
    if (fragment.length === 0) return;
    const { body, word } = await squash(codec, fragment, 1 << 24);
    fragments.push({ start: put(body), word });
    fragment = Buffer.alloc(0);
  };
  const files = new Map<string, { start: number; words: number[]; fragment: number; offset: number }>();
  for (const entry of entries.filter((x) => x.kind === 'file')) {
    const content = entry.content!;
    const whole = opts.noFragments || v1 ? Math.ceil(content.length / bs) : Math.floor(content.length / bs);
    const info = { start: pos, words: [] as number[], fragment: 0xffffffff, offset: 0 };
    for (let i = 0; i < whole; i++) {
      const block = content.subarray(i * bs, (i + 1) * bs);
      if (!v1 && block.every((b) => b === 0)) {
        info.words.push(0); // sparse
        continue;
      }
      const { body, word } = await squash(codec, block, v1 ? 0x8000 : 1 << 24);
      put(body);
      info.words.push(word);
    }
    const tail = content.subarray(whole * bs);
    if (tail.length > 0) {
      if (fragment.length + tail.length > bs) await closeFragment();
      info.fragment = fragments.length;
      info.offset = fragment.length;
      fragment = Buffer.concat([fragment, tail]);
    }
    files.set(entry.path, info);
  }
  await closeFragment();

  const inodes = new MetaWriter(e, codec);
  const dirs = new MetaWriter(e, codec);
  const done = new Map<string, { ref: { block: number; offset: number }; type: number }>();
  const base = (type: number, x: { mode: number; uid?: number; gid?: number }): Field[] => {
    const uid = idIndex(x.uid ?? 0);
    const gid = idIndex(x.gid ?? x.uid ?? 0);
    if (!v1) return [[0, 4, type], [4, 12, x.mode & 0o7777], [16, 8, uid], [24, 8, gid === uid ? 255 : gid]];
    // 1.x: 4-bit indexes; the uid's high bits go into the type (type + 5 × n), or the IPC inode's offset field.
    const ipc = type === TYPE.fifo || type === TYPE.socket;
    const stored = ipc ? 0 : type + 5 * Math.floor(uid / 16);
    const fields: Field[] = [[0, 4, stored], [4, 12, x.mode & 0o7777], [16, 4, uid % 16], [20, 4, gid === uid ? 15 : gid]];
    if (ipc) fields.push([24, 4, type], [28, 4, Math.floor(uid / 16)]);
    return fields;
  };
  // Where the 1.x and 2.x inodes put the fields after the base.
  const after = v1 ? 24 : 32;
  const short16 = (v: number): Buffer => pack(2, e, [[0, 16, v]]);

  const writeLeaf = async (x: V2Entry): Promise<{ ref: { block: number; offset: number }; type: number }> => {
    if (x.kind === 'hardlink') return done.get(x.target!)!;
    const ref = inodes.ref();
    const type = x.kind === 'device' ? TYPE.device : TYPE[x.kind as Exclude<V2Entry['kind'], 'hardlink' | 'device'>];
    if (x.kind === 'file' && v1) {
      const f = files.get(x.path)!;
      const fields: Field[] = [...base(type, x), [24, 32, x.mtime ?? mkfsTime], [56, 32, f.start], [88, 32, x.content!.length]];
      await inodes.write(Buffer.concat([pack(15, e, fields), ...f.words.map(short16)]));
    } else if (x.kind === 'file') {
      const f = files.get(x.path)!;
      const fields: Field[] = [...base(type, x), [32, 32, x.mtime ?? mkfsTime], [64, 32, f.start], [96, 32, f.fragment], [128, 32, f.offset], [160, 32, x.content!.length]];
      await inodes.write(Buffer.concat([pack(24, e, fields), ...f.words.map(word32)]));
    } else if (x.kind === 'symlink') {
      const target = Buffer.from(x.target!);
      await inodes.write(Buffer.concat([pack(after / 8 + 2, e, [...base(type, x), [after, 16, target.length]]), target]));
    } else if (x.kind === 'device') {
      await inodes.write(pack(after / 8 + 2, e, [...base(type, x), [after, 16, x.rdev!]]));
    } else {
      await inodes.write(pack(4, e, base(type, x)));
    }
    done.set(x.path, { ref, type });
    return { ref, type };
  };

  const writeDir = async (path: string, x: { mode: number; uid?: number; gid?: number; mtime?: number }): Promise<{ ref: { block: number; offset: number }; type: number }> => {
    const listed: Array<{ name: Buffer; ref: { block: number; offset: number }; type: number }> = [];
    for (const child of children.get(path) ?? []) {
      const written = child.kind === 'dir' ? await writeDir(child.path, child) : await writeLeaf(child);
      listed.push({ name: Buffer.from(child.path.slice(child.path.lastIndexOf('/') + 1)), ...written });
    }
    const listing: Buffer[] = [];
    for (let i = 0; i < listed.length; ) {
      let n = 1;
      while (i + n < listed.length && n < 256 && listed[i + n]!.ref.block === listed[i]!.ref.block) n++;
      listing.push(pack(4, e, [[0, 8, n - 1], [8, 24, listed[i]!.ref.block]]));
      for (const item of listed.slice(i, i + n)) listing.push(pack(3, e, [[0, 13, item.ref.offset], [13, 3, item.type], [16, 8, item.name.length - 1]]), item.name);
      i += n;
    }
    const bytes = Buffer.concat(listing);
    const at = dirs.ref();
    await dirs.write(bytes);
    const ref = inodes.ref();
    const mtime = x.mtime ?? mkfsTime;
    // Large listings get the extended directory inode (no index entries written: i_count 0).
    if (v1) await inodes.write(pack(14, e, [...base(1, x), [24, 19, bytes.length], [43, 13, at.offset], [56, 32, mtime], [88, 24, at.block]]));
    else if (bytes.length > 256) await inodes.write(pack(18, e, [...base(8, x), [32, 27, bytes.length], [59, 13, at.offset], [72, 32, mtime], [104, 24, at.block], [128, 16, 0]]));
    else await inodes.write(pack(15, e, [...base(1, x), [32, 19, bytes.length], [51, 13, at.offset], [64, 32, mtime], [96, 24, at.block]]));
    return { ref, type: TYPE.dir };
  };

  const root = await writeDir('', { mode: 0o755 });
  const inodeTable = await inodes.finish();
  const dirTable = await dirs.finish();
  const inodeStart = pos;
  const dirStart = inodeStart + inodeTable.length;
  const fragTableW = new MetaWriter(e, codec);
  for (const f of fragments) await fragTableW.write(Buffer.concat([word32(f.start), word32(f.word)]));
  const fragTable = await fragTableW.finish();
  const fragBlocksStart = dirStart + dirTable.length;
  const fragIndex = Buffer.concat(fragTableW.blockStarts.map((s) => word32(fragBlocksStart + s)));
  const fragIndexStart = fragBlocksStart + fragTable.length;
  const uidStart = fragIndexStart + fragIndex.length;
  const uidTable = Buffer.concat(ids.map(word32));
  const guidStart = uidStart + uidTable.length;
  const bytesUsed = guidStart + uidTable.length;

  const sb = Buffer.alloc(SUPER);
  sb.write(e === 'le' ? 'hsqs' : 'sqsh', 0, 'latin1');
  const w = (at: number, bytes: 1 | 2 | 4 | 8, v: number) => pack(bytes, e, [[0, bytes * 8, v]]).copy(sb, at);
  w(4, 4, entries.filter((x) => x.kind !== 'hardlink').length + 1);
  w(8, 4, bytesUsed);
  w(12, 4, uidStart);
  w(16, 4, guidStart);
  w(20, 4, inodeStart);
  w(24, 4, dirStart);
  w(28, 2, v1 ? 1 : 2);
  w(30, 2, v1 ? 0 : 1);
  w(32, 2, bs & 0xffff);
  w(34, 2, Math.log2(bs));
  w(36, 1, 0);
  w(37, 1, ids.length);
  w(38, 1, ids.length);
  w(39, 4, mkfsTime);
  w(43, 8, root.ref.block * 65536 + root.ref.offset);
  w(51, 4, bs);
  w(55, 4, fragments.length);
  w(59, 4, fragIndexStart);
  const image = Buffer.concat([sb, ...data, inodeTable, dirTable, fragTable, fragIndex, uidTable, uidTable]);
  const padded = Buffer.alloc(Math.ceil(image.length / 4096) * 4096);
  image.copy(padded);
  return padded;
}
