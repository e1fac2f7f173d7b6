import { describe, expect, it } from 'vitest';
import { zipHandler } from '../../../../src/engine/unpack/archives/zip/zip.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { FileReader } from '../../../../src/engine/unpack/reader.js';
import { compressibleBytes, pseudoRandom } from '../../../support/bytes.js';
import { extractFiles, tempDir } from '../extract-harness.js';
import { compressWith, tool } from '../handler-harness.js';
import { makeTree, TREE } from './archive-fixture.js';

describe('zip handler', () => {
  it('extracts deflated, stored and symlink entries of Info-ZIP output, carved between other bytes', async () => {
    const archive = tool('sh', ['-c', 'zip -qry out.zip root && cat out.zip'], { cwd: makeTree() });
    const run = await extractFiles(zipHandler, Buffer.concat([pseudoRandom(100, 7), archive, pseudoRandom(50, 7)]), 100);
    expect(run.chunk).toMatchObject({ start: 100, end: 100 + archive.length });
    expect(run.files['root/etc/passwd']).toEqual(TREE['etc/passwd']);
    expect(run.files['root/usr/bin/tool']).toEqual(TREE['usr/bin/tool']);
    expect(run.entries.find((e) => e.path === 'root/usr/bin/tool')?.meta.mode).toBe(0o755);
    expect(run.entries.find((e) => e.path === 'root/etc/tool-link')).toMatchObject({ kind: 'symlink', linkTarget: '../usr/bin/tool' });
    expect(run.problems).toEqual([]);
  });

  it('reads bzip2 entries (7z -mm=BZip2)', async () => {
    const dir = makeTree();
    tool('7z', ['a', '-tzip', '-mm=BZip2', '-bd', 'out.zip', 'root/usr/bin/tool'], { cwd: dir });
    const run = await extractFiles(zipHandler, tool('cat', [`${dir}/out.zip`]));
    expect(run.files['root/usr/bin/tool']).toEqual(TREE['usr/bin/tool']);
  });

  it('stops a zip bomb at the byte budget', async () => {
    const dir = tempDir();
    tool('sh', ['-c', 'head -c 20000000 /dev/zero > zeros && zip -q bomb.zip zeros'], { cwd: dir });
    const bomb = tool('cat', [`${dir}/bomb.zip`]);
    // the entry is dropped (never kept truncated) and the limit recorded with its name
    const run = await extractFiles(zipHandler, bomb, 0, { maxTotalBytes: 1_000_000 });
    expect(run.files.zeros).toBeUndefined();
    expect(run.problems.filter((p) => p.kind === 'limit').map((p) => p.message).join('\n')).toMatch(/zeros/);
  });

  it('stops an entry whose declared size lies', async () => {
    const archive = Buffer.from(tool('zip', ['-qr', '-', 'root/usr/bin/tool'], { cwd: makeTree() }));
    const cd = archive.lastIndexOf(Buffer.from('PK\x01\x02', 'latin1'));
    archive.writeUInt32LE(1000, cd + 24); // uncompressed size in the central directory
    const run = await extractFiles(zipHandler, archive);
    expect(run.files['root/usr/bin/tool']).toBeUndefined();
    expect(run.problems.map((p) => p.message).join()).toMatch(/more than its declared 1000 bytes/);
  });

  it('searches for the directory once per file, not once per local header (no quadratic scan)', async () => {
    const header = Buffer.from('PK\x03\x04\x14\x00\x00\x00\x08\x00', 'latin1');
    const data = Buffer.concat(Array.from({ length: 4000 }, () => Buffer.concat([header, Buffer.alloc(1014, 0x41)])));
    const dir = tempDir();
    writeFileSync(join(dir, 'many.bin'), data);
    const reader = await FileReader.open(join(dir, 'many.bin'));
    // Count what the handler reads: a search per local header would read the 4 MB file 4000 times over.
    let bytesRead = 0;
    const counting = Object.create(reader) as FileReader;
    counting.read = async (offset: number, length: number) => {
      const out = await reader.read(offset, length);
      bytesRead += out.length;
      return out;
    };
    for (let at = 0; at < data.length; at += 1024) expect(await zipHandler.chunk(counting, at)).toBeNull();
    await reader.close();
    expect(bytesRead).toBeLessThan(20 * data.length);
  });

  it('refuses a local header without a consistent end of central directory', async () => {
    const archive = tool('zip', ['-qr', '-', 'root'], { cwd: makeTree() });
    expect((await extractFiles(zipHandler, archive.subarray(0, archive.length - 30))).chunk).toBeNull();
  });
});

interface BuiltEntry {
  name: string;
  method: number;
  /** The entry's stored bytes (compressed, or encrypted). */
  data: Buffer;
  plain: Buffer;
  flags?: number;
}

/** A zip written by hand, for methods and layouts the Debian tools do not write (zstd, LZMA without a marker, zip64). */
function buildZip(entries: BuiltEntry[], { zip64 = false } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const crc = zlib.crc32(e.plain) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(63, 4);
    local.writeUInt16LE(e.flags ?? 0, 6);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.plain.length, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, e.data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x031e, 4); // made on Unix
    central.writeUInt16LE(63, 6);
    central.writeUInt16LE(e.flags ?? 0, 8);
    central.writeUInt16LE(e.method, 10);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(zip64 ? 0xffffffff : e.data.length, 20);
    central.writeUInt32LE(zip64 ? 0xffffffff : e.plain.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    central.writeUInt32LE(zip64 ? 0xffffffff : offset, 42);
    let extra = Buffer.alloc(0);
    if (zip64) {
      extra = Buffer.alloc(28);
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(24, 2);
      extra.writeBigUInt64LE(BigInt(e.plain.length), 4);
      extra.writeBigUInt64LE(BigInt(e.data.length), 12);
      extra.writeBigUInt64LE(BigInt(offset), 20);
    }
    central.writeUInt16LE(extra.length, 30);
    centrals.push(central, name, extra);
    offset += 30 + name.length + e.data.length;
  }
  const cd = Buffer.concat(centrals);
  const tail: Buffer[] = [];
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  if (zip64) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeBigUInt64LE(BigInt(entries.length), 24);
    record.writeBigUInt64LE(BigInt(entries.length), 32);
    record.writeBigUInt64LE(BigInt(cd.length), 40);
    record.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset + cd.length), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(record, locator);
    eocd.writeUInt16LE(0xffff, 8);
    eocd.writeUInt16LE(0xffff, 10);
    eocd.writeUInt32LE(0xffffffff, 12);
    eocd.writeUInt32LE(0xffffffff, 16);
  } else {
    eocd.writeUInt16LE(entries.length, 8);
    eocd.writeUInt16LE(entries.length, 10);
    eocd.writeUInt32LE(cd.length, 12);
    eocd.writeUInt32LE(offset, 16);
  }
  return Buffer.concat([...locals, cd, ...tail, eocd]);
}

/** Zip's LZMA data: version 9.20, properties size 5, the properties, then the raw stream of an LZMA-alone file. */
function zipLzma(alone: Buffer): Buffer {
  return Buffer.concat([Buffer.from([9, 20, 5, 0]), alone.subarray(0, 5), alone.subarray(13)]);
}

function lzmaSdk(data: Buffer): Buffer {
  const dir = tempDir('zip-lzma');
  writeFileSync(join(dir, 'in'), data);
  tool('lzma_alone', ['e', 'in', 'out'], { cwd: dir });
  return readFileSync(join(dir, 'out'));
}

const problemText = (run: { problems: Array<{ message: string }> }) => run.problems.map((p) => p.message).join('\n');

describe('zip handler: methods and encryption', () => {
  const tool7z = (dir: string, args: string[], file: string) => tool('7z', ['a', '-tzip', '-bd', ...args, 'out.zip', file], { cwd: dir });

  for (const [method, id] of [
    ['LZMA', 14],
    ['XZ', 95],
    ['BZip2', 12],
  ] as const) {
    it(`reads ${method} entries written by 7z (method ${id})`, async () => {
      const dir = makeTree();
      tool7z(dir, [`-mm=${method}`], 'root');
      const archive = readFileSync(join(dir, 'out.zip'));
      // The method in the local header of the large file (its name follows the 30-byte header; small ones are stored).
      expect(archive.readUInt16LE(archive.indexOf('root/usr/bin/tool') - 30 + 8)).toBe(id);
      const run = await extractFiles(zipHandler, archive);
      expect(run.files['root/etc/passwd']).toEqual(TREE['etc/passwd']);
      expect(run.files['root/usr/bin/tool']).toEqual(TREE['usr/bin/tool']);
      expect(run.problems).toEqual([]);
    });
  }

  it('reads zstd (93 and the early 20), LZMA without an end marker, and zip64 sizes and offsets', async () => {
    const text = Buffer.from('zstd in a zip\n'.repeat(2000));
    const binary = compressibleBytes(80_000, 4);
    const entries: BuiltEntry[] = [
      { name: 'a.zst.txt', method: 93, data: compressWith('zstd', ['-c', '-q'], text), plain: text },
      { name: 'b.zst.bin', method: 20, data: compressWith('zstd', ['-c', '-q'], binary), plain: binary },
      { name: 'c.lzma.bin', method: 14, data: zipLzma(lzmaSdk(binary)), plain: binary },
      { name: 'd.stored', method: 0, data: text, plain: text },
    ];
    for (const zip64 of [false, true]) {
      const archive = buildZip(entries, { zip64 });
      const run = await extractFiles(zipHandler, Buffer.concat([pseudoRandom(40, 3), archive, pseudoRandom(40, 4)]), 40);
      expect(run.chunk).toMatchObject({ start: 40, end: 40 + archive.length });
      for (const e of entries) expect(run.files[e.name]?.equals(e.plain), `${e.name} zip64=${zip64}`).toBe(true);
      expect(run.problems).toEqual([]);
    }
  });

  it('reports a corrupt zstd or LZMA entry and extracts the others', async () => {
    const text = Buffer.from('kept\n'.repeat(500));
    const noisy = pseudoRandom(3000, 5);
    const bad = compressWith('zstd', ['-c', '-q'], noisy);
    bad.fill(0x55, 12, 40);
    const badLzma = zipLzma(lzmaSdk(compressibleBytes(50_000, 9)));
    badLzma.fill(0xaa, 30, 60);
    const archive = buildZip([
      { name: 'bad.zst', method: 93, data: bad, plain: noisy },
      { name: 'bad.lzma', method: 14, data: badLzma, plain: compressibleBytes(50_000, 9) },
      { name: 'good.txt', method: 0, data: text, plain: text },
    ]);
    const run = await extractFiles(zipHandler, archive);
    expect(run.files['good.txt']?.equals(text)).toBe(true);
    expect(run.files['bad.zst']?.equals(noisy) ?? false).toBe(false);
    expect(run.files['bad.lzma']?.equals(compressibleBytes(50_000, 9)) ?? false).toBe(false);
    expect(problemText(run)).toMatch(/bad\.zst/);
    expect(problemText(run)).toMatch(/bad\.lzma/);
  });

  it('reads deflate64 entries (7z -mm=Deflate64): 64 KiB distances and 16-bit lengths', async () => {
    const dir = makeTree();
    const block = pseudoRandom(40_000, 12);
    // A block repeated 40 000 bytes later needs distance codes 30-31; a long zero run needs length code 285.
    const far = Buffer.concat([block, Buffer.from('separator'), block, Buffer.alloc(200_000), compressibleBytes(50_000, 2)]);
    writeFileSync(join(dir, 'root/far.bin'), far);
    tool7z(dir, ['-mm=Deflate64', '-mx=9'], 'root');
    const archive = readFileSync(join(dir, 'out.zip'));
    expect(archive.readUInt16LE(archive.indexOf('root/far.bin') - 30 + 8)).toBe(9);
    const run = await extractFiles(zipHandler, archive);
    expect(run.files['root/far.bin']?.equals(far)).toBe(true);
    expect(run.files['root/usr/bin/tool']).toEqual(TREE['usr/bin/tool']);
    expect(run.problems).toEqual([]);
    // A bomb stops at the budget; a damaged entry is reported by name.
    const bombed = await extractFiles(zipHandler, archive, 0, { maxTotalBytes: 100_000 });
    expect(bombed.files['root/far.bin']).toBeUndefined();
    expect(bombed.problems.filter((p) => p.kind === 'limit').map((p) => p.message).join('\n')).toMatch(/root\/far\.bin/);
    const damaged = Buffer.from(archive);
    const at = damaged.indexOf('root/far.bin') + 'root/far.bin'.length;
    damaged.fill(0xff, at + 100, at + 400);
    const bad = await extractFiles(zipHandler, damaged);
    expect(bad.files['root/far.bin']?.equals(far) ?? false).toBe(false);
    expect(problemText(bad)).toMatch(/root\/far\.bin/);
  });

  it('decodes length code 285 with its 16-bit extra and stored blocks (a deflate64 stream written bit by bit)', async () => {
    // Fixed-Huffman block: literal 'a', then length code 285 (3 + 16-bit extra 997 = 1000) at distance 1, end of block;
    // then a final stored block. Huffman codes go in most significant bit first, everything else LSB first.
    const bits: number[] = [];
    const put = (value: number, n: number) => {
      for (let i = 0; i < n; i++) bits.push((value >> i) & 1);
    };
    const code = (value: number, n: number) => {
      for (let i = n - 1; i >= 0; i--) bits.push((value >> i) & 1);
    };
    put(0, 1); // not last
    put(1, 2); // fixed Huffman
    code(0x30 + 0x61, 8); // literal 'a'
    code(0xc0 + (285 - 280), 8); // length code 285
    put(997, 16);
    code(0, 5); // distance code 0: distance 1
    code(0, 7); // end of block (256)
    put(1, 1); // last
    put(0, 2); // stored
    while (bits.length % 8) bits.push(0);
    const bytes = Buffer.alloc(bits.length / 8);
    bits.forEach((bit, i) => (bytes[i >> 3]! |= bit << (i & 7)));
    const stored = Buffer.from('stored tail');
    const header = Buffer.alloc(4);
    header.writeUInt16LE(stored.length, 0);
    header.writeUInt16LE(stored.length ^ 0xffff, 2);
    const plain = Buffer.concat([Buffer.alloc(1001, 0x61), stored]);
    const archive = buildZip([{ name: 'long-match', method: 9, data: Buffer.concat([bytes, header, stored]), plain }]);
    const run = await extractFiles(zipHandler, archive);
    expect(run.files['long-match']?.equals(plain)).toBe(true);
    expect(run.problems).toEqual([]);
  });

  it('reports PPMd entries by name as unsupported and extracts the rest', async () => {
    const dir = makeTree();
    writeFileSync(join(dir, 'root/etc/services'), 'ssh 22/tcp\n'.repeat(500));
    tool7z(dir, ['-mm=PPMd'], 'root/etc/services');
    tool7z(dir, ['-mm=Deflate'], 'root/usr/bin/tool');
    const run = await extractFiles(zipHandler, readFileSync(join(dir, 'out.zip')));
    expect(run.files['root/usr/bin/tool']).toEqual(TREE['usr/bin/tool']);
    expect(run.files['root/etc/services']).toBeUndefined();
    expect(problemText(run)).toMatch(/root\/etc\/services uses compression method 98 \(PPMd\), which is not supported; not extracted/);
    expect(run.problems.every((p) => p.kind === 'skipped')).toBe(true);
  });

  it('skips traditional PKWARE and WinZip AES encrypted entries with a problem each, and extracts the rest', async () => {
    const dir = makeTree();
    tool('zip', ['-q', '-P', 'secret', 'out.zip', 'root/etc/passwd'], { cwd: dir });
    tool7z(dir, ['-pSECRET', '-mem=AES256'], 'root/etc/tool-link');
    tool7z(dir, ['-pSECRET', '-mem=AES128', '-mm=LZMA'], 'root/var');
    tool7z(dir, [], 'root/usr/bin/tool');
    const run = await extractFiles(zipHandler, readFileSync(join(dir, 'out.zip')));
    expect(run.files['root/usr/bin/tool']).toEqual(TREE['usr/bin/tool']);
    expect(run.files['root/etc/passwd']).toBeUndefined();
    const text = problemText(run);
    expect(text).toMatch(/root\/etc\/passwd uses traditional PKWARE encryption; not extracted/);
    expect(text).toMatch(/root\/etc\/tool-link uses WinZip AES-256 encryption \(deflate inside\)|root\/etc\/tool-link uses WinZip AES-256 encryption \(stored inside\)/);
    expect(run.problems.every((p) => p.kind === 'skipped')).toBe(true);
  });
});
