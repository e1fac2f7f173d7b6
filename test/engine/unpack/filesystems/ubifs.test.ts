import { appendFileSync, linkSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { ubifsHandler } from '../../../../src/engine/unpack/filesystems/ubifs/ubifs.js';
import { capabilityText, xattrValue } from '../../../../src/engine/unpack/filesystems/xattrs.js';
import { FormatError } from '../../../../src/engine/format-error.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { cleanup, corrupt, entry, expectCorruptionsRefused, expectTree, extractWith, imageWorkspace, noise, run, type SampleFile, sampleTree, writeTree } from './fs-image-harness.js';

const { enabled, work, src } = imageWorkspace('ubifs', 'mkfs.ubifs');
let files: SampleFile[];

/** A bare UBIFS image (512-byte pages, 15 KiB LEBs: the smallest geometry mkfs.ubifs accepts). */
export function mkubifs(source: string, out: string, compression: string): string {
  run('mkfs.ubifs', ['-r', source, '-m', '512', '-e', '15360', '-c', '200', '-x', compression, '-D', join(work, 'devtable'), '-o', out]);
  return out;
}

const ubifsCrc = (b: Buffer) => ~zlib.crc32(b) >>> 0;

/** A UBIFS node (common header + body) with its CRC, padded to 8 bytes as nodes are laid out in a LEB. */
function ubifsNode(type: number, sqnum: number, body: Buffer): Buffer {
  const node = Buffer.alloc(24 + body.length);
  node.writeUInt32LE(0x06101831, 0);
  node.writeBigUInt64LE(BigInt(sqnum), 8);
  node.writeUInt32LE(node.length, 16);
  node[20] = type;
  body.copy(node, 24);
  node.writeUInt32LE(ubifsCrc(node.subarray(8)), 4);
  return Buffer.concat([node, Buffer.alloc((8 - (node.length % 8)) % 8)]);
}

function key(inum: number, type: number, value: number): Buffer {
  const k = Buffer.alloc(16);
  k.writeUInt32LE(inum, 0);
  k.writeUInt32LE(((type << 29) | value) >>> 0, 4);
  return k;
}

function inoBody(inum: number, mode: number, size: number, nlink: number): Buffer {
  const b = Buffer.alloc(136);
  key(inum, 0, 0).copy(b, 0);
  b.writeBigUInt64LE(BigInt(size), 24);
  b.writeUInt32LE(nlink, 68);
  b.writeUInt32LE(mode, 80);
  return b;
}

function dataBody(inum: number, block: number, data: Buffer): Buffer {
  const b = Buffer.alloc(24);
  key(inum, 1, block).copy(b, 0);
  b.writeUInt32LE(data.length, 16);
  return Buffer.concat([b, data]);
}

function dentBody(parent: number, name: string, inum: number): Buffer {
  const b = Buffer.alloc(32);
  key(parent, 2, 12345).copy(b, 0);
  b.writeBigUInt64LE(BigInt(inum), 16);
  b.writeUInt16LE(name.length, 26);
  return Buffer.concat([b, Buffer.from(name), Buffer.alloc(1)]);
}

function trunBody(inum: number, oldSize: number, newSize: number): Buffer {
  const b = Buffer.alloc(32);
  b.writeUInt32LE(inum, 0);
  b.writeBigUInt64LE(BigInt(oldSize), 16);
  b.writeBigUInt64LE(BigInt(newSize), 24);
  return b;
}

const LEB = 15360;

/** The commit-start node's sequence number (LEB 3, the log) and the highest inode number (master node, LEB 1). */
function commitState(image: Buffer): { csSqnum: number; highest: number } {
  expect(image.readUInt32LE(3 * LEB)).toBe(0x06101831);
  return { csSqnum: Number(image.readBigUInt64LE(3 * LEB + 8)), highest: Number(image.readBigUInt64LE(LEB + 24)) };
}

/**
 * `image` with a journal written after its last commit: `budNodes` in a new LEB (a bud), named by a reference node in
 * the log, and the superblock's LEB count grown to cover it (as mounting does before the journal writes there).
 */
function appendJournal(image: Buffer, budNodes: Buffer): { withJournal: Buffer; ref: Buffer; logAt: number } {
  const logAt = 3 * LEB;
  const { csSqnum } = commitState(image);
  const bud = image.length / LEB;
  const ref = Buffer.alloc(40);
  ref.writeUInt32LE(bud, 0);
  ref.writeUInt32LE(0, 4);
  ref.writeUInt32LE(1, 8);
  const withJournal = Buffer.concat([image, budNodes, Buffer.alloc(LEB - budNodes.length, 0xff)]);
  withJournal.writeUInt32LE(bud + 1, 40);
  withJournal.writeUInt32LE(ubifsCrc(withJournal.subarray(8, withJournal.readUInt32LE(16))), 4);
  ubifsNode(8, csSqnum + 50, ref).copy(withJournal, logAt + 512);
  return { withJournal, ref, logAt };
}

/** An extended-attribute entry under `host` naming the xattr inode `inum` (0: the attribute was removed). */
function xentBody(host: number, name: string, inum: number): Buffer {
  const b = dentBody(host, name, inum);
  key(host, 3, 777).copy(b, 0);
  return b;
}

/** An xattr inode: flags UBIFS_XATTR_FL, the value as its data. */
function xattrInoBody(inum: number, value: Buffer): Buffer {
  const b = inoBody(inum, 0o100777, value.length, 1);
  b.writeUInt32LE(0x20, 84);
  b.writeUInt32LE(value.length, 88);
  return Buffer.concat([b, value]);
}

/** The directory entry node called `name` in an image: its parent and target inode numbers. */
function findDent(image: Buffer, name: string): { parent: number; inum: number } {
  for (let at = 0; at + 56 < image.length; at += 8) {
    if (image.readUInt32LE(at) !== 0x06101831 || image[at + 20] !== 2) continue;
    const nlen = image.readUInt16LE(at + 50);
    if (image.toString('utf8', at + 56, at + 56 + nlen) === name) return { parent: image.readUInt32LE(at + 24), inum: Number(image.readBigUInt64LE(at + 40)) };
  }
  throw new Error(`no entry ${name}`);
}

beforeAll(() => {
  files = [
    ...sampleTree({ symlinks: true, longNames: true }),
    // A sparse file: UBIFS stores no data nodes for the hole.
    { path: 'sparse.bin', kind: 'file', content: Buffer.concat([noise(5000, 11), Buffer.alloc(40_000), Buffer.from('tail')]), mode: 0o644 },
  ];
  writeTree(src, files.filter((f) => f.path !== 'sparse.bin'), { modes: true });
  // Written as a real hole so the image has no data nodes for it.
  const sparse = join(src, 'sparse.bin');
  writeFileSync(sparse, noise(5000, 11));
  truncateSync(sparse, 45_000);
  appendFileSync(sparse, 'tail');
  linkSync(join(src, 'etc/passwd'), join(src, 'etc/passwd-'));
  writeFileSync(join(work, 'devtable'), '/dev d 755 0 0 - - - - -\n/dev/ttyS0 c 620 0 5 4 64 - - -\n');
});

describe.runIf(enabled)('ubifs handler', () => {
  for (const compression of ['none', 'zlib', 'lzo', 'zstd']) {
    it(`extracts a ${compression}-compressed image with modes and symlinks`, async () => {
      const image = mkubifs(src, join(work, `${compression}.img`), compression);
      const ex = await extractWith(ubifsHandler, image);
      expect(ex.chunk).toMatchObject({ start: 0, end: readFileSync(image).length, meta: { lebSize: 15360 } });
      expectTree(ex, files, { modes: true });
      expect(entry(ex, 'etc/far')?.linkTarget).toBe('/' + 'x'.repeat(120) + '/target');
      expect(entry(ex, 'dev/ttyS0')).toMatchObject({ kind: 'device', meta: { mode: 0o620, gid: 5, meta: { major: 4, minor: 64 } } });
      const names = ['etc/passwd', 'etc/passwd-'].map((p) => entry(ex, p)?.kind).sort();
      expect(names).toEqual(['file', 'hardlink']);
      expect(ex.sink.problems).toEqual([]);
      cleanup(ex.root);
    });
  }

  it('ends a carved image after its last used LEB', async () => {
    const image = readFileSync(mkubifs(src, join(work, 'carve.img'), 'zlib'));
    const carved = Buffer.concat([noise(777, 1), image, Buffer.alloc(15360 * 3, 0xff), noise(20_000, 2)]);
    const ex = await extractWith(ubifsHandler, carved, 777);
    expect(ex.chunk).toMatchObject({ start: 777, end: 777 + image.length });
    expectTree(ex, files, { modes: true });
    cleanup(ex.root);
  });

  it('replays the journal: new files, deletions, overwrites and truncations after the last commit', async () => {
    const image = readFileSync(mkubifs(src, join(work, 'journal.img'), 'zlib'));
    const { csSqnum, highest } = commitState(image);
    const passwd = findDent(image, 'passwd');
    const empty = findDent(image, 'empty');
    const rcs = findDent(image, 'rcS');
    let sq = csSqnum + 100;
    const budNodes = Buffer.concat([
      // Stale: older than the commit start, so not part of the journal.
      ubifsNode(1, csSqnum - 1, dataBody(rcs.inum, 0, Buffer.from('stale'))),
      ubifsNode(0, ++sq, inoBody(highest + 1, 0o100640, 17, 1)),
      ubifsNode(1, ++sq, dataBody(highest + 1, 0, Buffer.from('from the journal\n'))),
      ubifsNode(2, ++sq, dentBody(1, 'journal.txt', highest + 1)),
      ubifsNode(2, ++sq, dentBody(1, 'empty', 0)),
      ubifsNode(0, ++sq, inoBody(empty.inum, 0o100600, 0, 0)),
      ubifsNode(4, ++sq, trunBody(passwd.inum, 31, 5)),
      ubifsNode(1, ++sq, dataBody(passwd.inum, 0, Buffer.from('ROOT!'))),
      ubifsNode(0, ++sq, inoBody(passwd.inum, 0o100600, 5, 2)),
    ]);
    const { withJournal, ref, logAt } = appendJournal(image, budNodes);
    const ex = await extractWith(ubifsHandler, withJournal);
    expect(ex.error).toBeUndefined();
    expect(ex.sink.problems).toEqual([]);
    expect(readFileSync(join(ex.root, 'journal.txt'), 'utf8')).toBe('from the journal\n');
    expect(entry(ex, 'journal.txt')?.meta.mode).toBe(0o640);
    expect(entry(ex, 'empty')).toBeUndefined();
    const passwdFile = entry(ex, 'etc/passwd')?.kind === 'file' ? 'etc/passwd' : 'etc/passwd-';
    expect(readFileSync(join(ex.root, passwdFile), 'utf8')).toBe('ROOT!');
    expect(readFileSync(join(ex.root, 'etc/init.d/rcS'), 'utf8')).toBe('#!/bin/sh\necho boot\n');
    cleanup(ex.root);

    // A reference to a LEB outside the volume is reported; the committed tree still comes out.
    const badRef = Buffer.from(withJournal);
    ref.writeUInt32LE(9999, 0);
    ubifsNode(8, csSqnum + 50, ref).copy(badRef, logAt + 512);
    const bx = await extractWith(ubifsHandler, badRef);
    expect(bx.sink.problems.some((p) => p.message.includes('bud 9999'))).toBe(true);
    expect(entry(bx, 'empty')?.kind).toBe('file');
    cleanup(bx.root);
  });

  it('attaches extended attributes to their files: SELinux labels as text, capabilities as base64', async () => {
    const image = readFileSync(mkubifs(src, join(work, 'xattr.img'), 'lzo'));
    const { csSqnum, highest } = commitState(image);
    const busybox = findDent(image, 'busybox');
    const etc = findDent(image, 'etc');
    const passwd = findDent(image, 'passwd');
    const label = Buffer.from('system_u:object_r:bin_t:s0\0');
    // VFS_CAP_REVISION_2 with cap_net_raw (13) and cap_net_bind_service (10) permitted and effective.
    const capability = Buffer.alloc(20);
    capability.writeUInt32LE(0x02000001, 0);
    capability.writeUInt32LE((1 << 13) | (1 << 10), 4);
    let sq = csSqnum + 100;
    let xattrInum = highest + 10;
    const attr = (host: number, name: string, value: Buffer) => {
      const inum = ++xattrInum;
      return [ubifsNode(0, ++sq, xattrInoBody(inum, value)), ubifsNode(3, ++sq, xentBody(host, name, inum))];
    };
    const budNodes = Buffer.concat([
      ...attr(busybox.inum, 'security.selinux', label),
      ...attr(busybox.inum, 'security.capability', capability),
      ...attr(etc.inum, 'security.selinux', Buffer.from('system_u:object_r:etc_t:s0\0')),
      ...attr(passwd.inum, 'user.comment', Buffer.from('removed below')),
      ...attr(passwd.inum, 'user.checksum', Buffer.from([0, 1, 2, 0xff])),
      // Removing an attribute: its entry points at inode 0 and its xattr inode goes.
      ubifsNode(3, ++sq, xentBody(passwd.inum, 'user.comment', 0)),
      // An entry whose xattr inode never made it to flash.
      ubifsNode(3, ++sq, xentBody(etc.inum, 'user.lost', highest + 999)),
    ]);
    const ex = await extractWith(ubifsHandler, appendJournal(image, budNodes).withJournal);
    expect(ex.error).toBeUndefined();
    expect(entry(ex, 'bin/busybox')?.meta.meta).toEqual({
      xattrs: { 'security.selinux': 'system_u:object_r:bin_t:s0', 'security.capability': `base64:${capability.toString('base64')}` },
      capabilities: 'cap_net_bind_service,cap_net_raw=ep',
    });
    expect(entry(ex, 'etc')?.meta.meta).toEqual({ xattrs: { 'security.selinux': 'system_u:object_r:etc_t:s0' } });
    // Both names of the hard-linked passwd carry its attributes.
    for (const name of ['etc/passwd', 'etc/passwd-']) expect(entry(ex, name)?.meta.meta).toEqual({ xattrs: { 'user.checksum': 'base64:AAEC/w==' } });
    expect(entry(ex, 'etc/init.d/rcS')?.meta.meta).toBeUndefined();
    expect(ex.sink.problems.map((p) => p.message)).toEqual([`UBIFS: etc: extended attribute user.lost names inode ${highest + 999}, which is missing`]);
    expectTree(ex, files, { modes: true });
    cleanup(ex.root);
  });

  it('rebuilds the tree from a scan of all nodes when the master nodes are destroyed', async () => {
    const image = Buffer.from(readFileSync(mkubifs(src, join(work, 'recover.img'), 'zlib')));
    for (const leb of [1, 2]) image.fill(0x55, leb * 15360, leb * 15360 + 512);
    const ex = await extractWith(ubifsHandler, image);
    expect(ex.sink.problems.some((p) => p.message.includes('no valid master node') && p.message.includes('rebuilt'))).toBe(true);
    expectTree(ex, files, { modes: true });
    cleanup(ex.root);
  });

  it('rejects other UBIFS nodes and garbage quietly', async () => {
    const image = readFileSync(mkubifs(src, join(work, 'q.img'), 'zlib'));
    // LEB 1 starts with a master node: same magic, not a superblock.
    expect(await ubifsHandler.chunk(new BufferReader(image), 15360)).toBeNull();
    expect(await ubifsHandler.chunk(new BufferReader(noise(8192, 2)), 0)).toBeNull();
  });

  it('reports corrupt and truncated images and keeps what it can read', async () => {
    const image = readFileSync(mkubifs(src, join(work, 'c.img'), 'zlib'));
    const cut = await extractWith(ubifsHandler, image.subarray(0, image.length - 3 * 15360));
    if (cut.error) expect(cut.error).toBeInstanceOf(FormatError);
    else expect(cut.sink.problems.length).toBeGreaterThan(0);
    cleanup(cut.root);
    await expectCorruptionsRefused(ubifsHandler, image, 12, 30, 4096);
    const badSb = Buffer.from(image);
    badSb[100] ^= 0xff;
    const sbx = await extractWith(ubifsHandler, badSb);
    expect(sbx.sink.problems.map((p) => p.message)).toEqual(['UBIFS superblock CRC mismatch; its fields looked sane and were used']);
    expectTree(sbx, files, { modes: true });
    cleanup(sbx.root);
    badSb.writeUInt32LE(3, 36); // a LEB size no UBIFS can have
    expect(await ubifsHandler.chunk(new BufferReader(badSb), 0)).toBeNull();
  });
});

describe('extended attribute values', () => {
  it('reads file capabilities of every revision the way getcap prints them', () => {
    const cap = (magic: number, ...words: number[]) => {
      const b = Buffer.alloc(4 + 4 * words.length);
      b.writeUInt32LE(magic, 0);
      words.forEach((w, i) => b.writeUInt32LE(w, 4 + 4 * i));
      return b;
    };
    expect(capabilityText(cap(0x01000001, 1 << 10, 0))).toBe('cap_net_bind_service=ep');
    expect(capabilityText(cap(0x02000000, (1 << 13) | (1 << 21), 1 << 21, 1 << 6, 0))).toBe('cap_sys_admin=ip cap_net_raw,cap_perfmon=p');
    expect(capabilityText(cap(0x03000001, 0, 0, 1 << 8, 0, 0))).toBe('cap_checkpoint_restore=ep');
    expect(capabilityText(Buffer.from('not a capability'))).toBeUndefined();
    expect(xattrValue(Buffer.from('plain text\n'))).toBe('plain text\n');
    expect(xattrValue(Buffer.from('base64:looks encoded'))).toBe(`base64:${Buffer.from('base64:looks encoded').toString('base64')}`);
    expect(xattrValue(Buffer.from([0xc3, 0x28]))).toBe('base64:wyg=');
  });
});
