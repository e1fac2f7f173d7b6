// Test-only: turns a little-endian SquashFS 4 image whose tables and data are all stored uncompressed
// (mksquashfs -noI -noId -noD -noF -noX -no-exports -no-xattrs) into the big-endian layout some vendor tools
// write, by byte-swapping every field of the superblock, metadata block headers, inodes, directory entries and
// table entries. No Debian tool writes big-endian SquashFS 4.
const sizes = {
  super: ['u32', 'u32', 'u32', 'u32', 'u32', 'u16', 'u16', 'u16', 'u16', 'u16', 'u16', 'u64', 'u64', 'u64', 'u64', 'u64', 'u64', 'u64', 'u64'],
} as const;

type Width = 2 | 4 | 8;
const width = (t: string): Width => (t === 'u16' ? 2 : t === 'u32' ? 4 : 8) as Width;

/** Decoded view of an uncompressed metadata table: logical offset → position in the image. */
class Table {
  readonly positions: number[] = [];
  constructor(image: Buffer, start: number, end: number, swapHeaders: (at: number) => void) {
    for (let at = start; at < end; ) {
      const word = image.readUInt16LE(at);
      if ((word & 0x8000) === 0) throw new Error(`compressed metadata block at ${at}: build the image with -noI -noD -noF -noId`);
      const size = word & 0x7fff;
      for (let i = 0; i < size; i++) this.positions.push(at + 2 + i);
      swapHeaders(at);
      at += 2 + size;
    }
  }
}

export function swapSquashfsV4(le: Buffer): Buffer {
  const out = Buffer.from(le);
  const swapAt = (at: number, w: Width) => out.subarray(at, at + w).reverse();
  const u = (at: number, w: Width): number =>
    w === 2 ? le.readUInt16LE(at) : w === 4 ? le.readUInt32LE(at) : Number(le.readBigUInt64LE(at));
  // Superblock.
  const fields: number[] = [];
  let at = 0;
  for (const t of sizes.super) {
    fields.push(u(at, width(t)));
    swapAt(at, width(t));
    at += width(t);
  }
  const [, , , blockSize, fragments, , , , ids] = fields as [number, number, number, number, number, number, number, number, number];
  const [idTable, , inodeTable, dirTable, fragTable, lookupTable] = fields.slice(13) as number[];
  const bytesUsed = fields[12]!;
  if (lookupTable !== 2 ** 64) throw new Error('build the image with -no-exports');
  const header = (p: number) => swapAt(p, 2);
  const indexEnd = (start: number, count: number) => start + count * 8;
  const idIndexCount = Math.ceil((ids * 4) / 8192);
  const fragIndexCount = Math.ceil((fragments * 16) / 8192);
  const firstId = u(idTable!, 8);
  const dirEnd = fragments > 0 ? u(fragTable!, 8) : Math.min(firstId, fragTable!);
  const inodes = new Table(le, inodeTable!, dirTable!, header);
  const dirs = new Table(le, dirTable!, dirEnd, header);
  const swapLogical = (t: Table, off: number, w: Width) => {
    const bytes = t.positions.slice(off, off + w).map((p) => le[p]!);
    bytes.reverse().forEach((b, i) => (out[t.positions[off + i]!] = b));
  };
  const readLogical = (t: Table, off: number, w: Width): number => {
    let v = 0;
    for (let i = w - 1; i >= 0; i--) v = v * 256 + le[t.positions[off + i]!]!;
    return v;
  };
  // Inodes, in sequence.
  for (let off = 0; off < inodes.positions.length; ) {
    const type = readLogical(inodes, off, 2);
    for (const [o, w] of [[0, 2], [2, 2], [4, 2], [6, 2], [8, 4], [12, 4]] as const) swapLogical(inodes, off + o, w);
    const body = off + 16;
    const layout: Record<number, Width[]> = {
      1: [4, 4, 2, 2, 4], 2: [4, 4, 4, 4], 3: [4, 4], 4: [4, 4], 5: [4, 4], 6: [4], 7: [4],
      8: [4, 4, 4, 4, 2, 2, 4], 9: [8, 8, 8, 4, 4, 4, 4],
    };
    const ws = layout[type];
    if (!ws) throw new Error(`inode type ${type} not handled by the swapper`);
    let p = body;
    const values: number[] = [];
    for (const w of ws) {
      values.push(readLogical(inodes, p, w));
      swapLogical(inodes, p, w);
      p += w;
    }
    if (type === 2 || type === 9) {
      const [size, fragment] = type === 2 ? [values[3]!, values[1]!] : [values[1]!, values[4]!];
      const blocks = fragment === 0xffffffff ? Math.ceil(size / blockSize) : Math.floor(size / blockSize);
      for (let i = 0; i < blocks; i++, p += 4) swapLogical(inodes, p, 4);
    } else if (type === 3) {
      p += values[1]!;
    } else if (type === 8) {
      for (let i = 0; i < values[4]!; i++) {
        const nameSize = readLogical(inodes, p + 8, 4);
        for (let k = 0; k < 3; k++) swapLogical(inodes, p + k * 4, 4);
        p += 12 + nameSize + 1;
      }
    }
    off = p;
  }
  // Directory listings: header (count, start, inode) then count+1 entries (offset, delta, type, size, name).
  for (let off = 0; off < dirs.positions.length; ) {
    const count = readLogical(dirs, off, 4);
    for (let k = 0; k < 3; k++) swapLogical(dirs, off + k * 4, 4);
    off += 12;
    for (let i = 0; i <= count; i++) {
      const size = readLogical(dirs, off + 6, 2);
      for (let k = 0; k < 4; k++) swapLogical(dirs, off + k * 2, 2);
      off += 8 + size + 1;
    }
  }
  // Fragment and id tables: entries in metadata blocks, then their index of 64-bit pointers.
  const swapIndexed = (indexStart: number, count: number, entry: Width[]) => {
    for (let i = 0; i < count; i++) {
      const block = u(indexStart + i * 8, 8);
      const word = le.readUInt16LE(block);
      if ((word & 0x8000) === 0) throw new Error(`compressed table block at ${block}`);
      const size = word & 0x7fff;
      header(block);
      for (let p = block + 2; p < block + 2 + size; ) for (const w of entry) (swapAt(p, w), (p += w));
      swapAt(indexStart + i * 8, 8);
    }
    return indexEnd(indexStart, count);
  };
  if (fragments > 0) swapIndexed(fragTable!, fragIndexCount, [8, 4, 4]);
  swapIndexed(idTable!, idIndexCount, [4]);
  if (bytesUsed > out.length) throw new Error('image shorter than bytes_used');
  return out;
}
