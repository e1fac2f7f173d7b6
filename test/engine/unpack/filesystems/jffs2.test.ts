import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { jffs2Handler } from '../../../../src/engine/unpack/filesystems/jffs2/jffs2.js';
import { dynrubinDecompress, rubinmipsDecompress } from '../../../../src/engine/unpack/filesystems/jffs2/rubin.js';
import { dynrubinEncode, MIPS_BITS, MIPS_DIVIDER, rubinEncode } from './jffs2-rubin-encoder.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { lzma } from '../../../../src/engine/unpack/codecs/blocks.js';
import { cleanup, entry, expectCorruptionsRefused, expectTree, extractWith, imageWorkspace, noise, run, type SampleFile, sampleTree, writeTree } from './fs-image-harness.js';

const { enabled, work, src } = imageWorkspace('jffs2', 'mkfs.jffs2');
const ERASE = 0x10000;
let files: SampleFile[];

function mkjffs2(name: string, args: string[]): Buffer {
  const out = join(work, name);
  run('mkfs.jffs2', ['-r', src, '-o', out, '-e', String(ERASE), '-D', join(work, 'devtable'), ...args]);
  return readFileSync(out);
}

const crc = (b: Buffer) => ~zlib.crc32(b, 0xffffffff) >>> 0;

/** Builds a little-endian node with valid CRCs (as the kernel would write it). */
function node(type: number, body: Buffer, payload: Buffer, bodyCrcAt: number, covered = 12 + bodyCrcAt): Buffer {
  const out = Buffer.concat([Buffer.alloc(12), body, payload]);
  out.writeUInt16LE(0x1985, 0);
  out.writeUInt16LE(type, 2);
  out.writeUInt32LE(out.length, 4);
  out.writeUInt32LE(crc(out.subarray(0, 8)), 8);
  out.writeUInt32LE(crc(out.subarray(0, covered)), 12 + bodyCrcAt);
  const pad = (4 - (out.length % 4)) % 4;
  return Buffer.concat([out, Buffer.alloc(pad, 0xff)]);
}

function dirent(pino: number, version: number, ino: number, name: string): Buffer {
  const body = Buffer.alloc(28);
  body.writeUInt32LE(pino, 0);
  body.writeUInt32LE(version, 4);
  body.writeUInt32LE(ino, 8);
  body[16] = name.length;
  body[17] = 8;
  body.writeUInt32LE(crc(Buffer.from(name)), 24);
  return node(0xe001, body, Buffer.from(name), 20);
}

function inode(ino: number, version: number, mode: number, isize: number, offset: number, data: Buffer, compr = 0, dsize = data.length): Buffer {
  const body = Buffer.alloc(56);
  body.writeUInt32LE(ino, 0);
  body.writeUInt32LE(version, 4);
  body.writeUInt32LE(mode, 8);
  body.writeUInt32LE(isize, 16);
  body.writeUInt32LE(offset, 32);
  body.writeUInt32LE(data.length, 36);
  body.writeUInt32LE(dsize, 40);
  body[44] = compr;
  body.writeUInt32LE(crc(data), 48);
  // The node CRC covers the header up to (not including) data_crc.
  return node(0xe002, body, data, 52, 60);
}

/** ino and version of the newest dirent called `name` (read straight from the image bytes). */
function findDirent(image: Buffer, name: string): { pino: number; ino: number } {
  for (let at = 0; at + 40 < image.length; at += 4) {
    if (image.readUInt16LE(at) !== 0x1985 || image.readUInt16LE(at + 2) !== 0xe001) continue;
    const nsize = image[at + 28]!;
    if (image.subarray(at + 40, at + 40 + nsize).toString() === name) return { pino: image.readUInt32LE(at + 12), ino: image.readUInt32LE(at + 20) };
  }
  throw new Error(`no dirent ${name}`);
}

beforeAll(() => {
  files = [...sampleTree({ symlinks: true, longNames: true })];
  writeTree(src, files, { modes: true });
  // Device nodes come from a device table (no root needed): name type mode uid gid major minor start inc count
  writeFileSync(join(work, 'devtable'), '/dev d 755 0 0 - - - - -\n/dev/console c 600 0 0 5 1 - - -\n/dev/mtdblock0 b 640 0 0 31 0 - - -\n');
});

describe.runIf(enabled)('jffs2 handler', () => {
  const variants: Array<[string, string[], 'le' | 'be']> = [
    ['zlib, little-endian, padded', ['-l', '-p'], 'le'],
    ['zlib, big-endian', ['-b'], 'be'],
    ['rtime only', ['-l', '-x', 'zlib'], 'le'],
    ['lzo only', ['-l', '-X', 'lzo', '-x', 'zlib', '-x', 'rtime'], 'le'],
    ['uncompressed, no cleanmarkers', ['-b', '-n', '-x', 'zlib', '-x', 'rtime'], 'be'],
  ];
  for (const [label, args, endian] of variants) {
    it(`extracts ${label} images with modes, symlinks and devices`, async () => {
      const image = mkjffs2(`${label.replace(/\W+/g, '-')}.img`, args);
      const carved = Buffer.concat([noise(256, 1), image, Buffer.from('not jffs2 data at all, the next partition'), noise(3000, 2)]);
      const ex = await extractWith(jffs2Handler, carved, 256);
      expect(ex.chunk).toMatchObject({ start: 256, end: 256 + image.length, meta: { endian } });
      expectTree(ex, files, { modes: true });
      expect(entry(ex, 'dev/console')).toMatchObject({ kind: 'device', meta: { mode: 0o600, meta: { major: 5, minor: 1, kind: 'char' } } });
      expect(entry(ex, 'dev/mtdblock0')?.meta.meta).toMatchObject({ major: 31, minor: 0, kind: 'block' });
      expect(ex.sink.problems).toEqual([]);
      cleanup(ex.root);
    });
  }

  it('skips erase-block summary nodes (sumtool)', async () => {
    const plain = join(work, 'presum.img');
    writeFileSync(plain, mkjffs2('presum.img', ['-l', '-p']));
    const summed = join(work, 'summed.img');
    run('sumtool', ['-i', plain, '-o', summed, '-e', String(ERASE), '-l', '-p']);
    const ex = await extractWith(jffs2Handler, summed);
    expect(ex.chunk?.end).toBe(readFileSync(summed).length);
    expectTree(ex, files, { modes: true });
    cleanup(ex.root);
  });

  it('lets the newest node win: overwritten data, unlinked names, and the OpenWrt end marker', async () => {
    const image = mkjffs2('base.img', ['-l', '-p']);
    expect(image.length % ERASE).toBe(0);
    const passwd = findDirent(image, 'passwd');
    const empty = findDirent(image, 'empty');
    const original = files.find((f) => f.path === 'etc/passwd')!.content!;
    const update = Buffer.concat([
      inode(passwd.ino, 1000, 0o100600, original.length + 6, 5, Buffer.from('ROOT')),
      inode(passwd.ino, 1001, 0o100600, original.length + 6, original.length + 2, Buffer.from('!!!!')),
      dirent(empty.pino, 1000, 0, 'empty'),
      dirent(1, 1001, passwd.ino, 'passwd-link'),
    ]);
    const block = Buffer.concat([update, Buffer.alloc(ERASE - update.length, 0xff)]);
    const marker = Buffer.from([0xde, 0xad, 0xc0, 0xde]);
    const full = Buffer.concat([image, block, marker, noise(5000, 9)]);
    const ex = await extractWith(jffs2Handler, full);
    expect(ex.chunk).toMatchObject({ end: image.length + ERASE + 4, meta: { endMarker: true } });
    const expected = Buffer.concat([original.subarray(0, 5), Buffer.from('ROOT'), original.subarray(9), Buffer.from([0, 0]), Buffer.from('!!!!')]);
    // Two names for one inode: the first one walked is the file, the other a hard link to it.
    const [file, link] = entry(ex, 'passwd-link')?.kind === 'file' ? ['passwd-link', 'etc/passwd'] : ['etc/passwd', 'passwd-link'];
    expect(readFileSync(join(ex.root, file)).toString('hex')).toBe(expected.toString('hex'));
    expect(entry(ex, file)?.meta.mode).toBe(0o600);
    expect(entry(ex, link)).toMatchObject({ kind: 'hardlink', linkTarget: file });
    expect(entry(ex, 'empty')).toBeUndefined();
    cleanup(ex.root);
  });

  it('decodes OpenWrt LZMA nodes (raw LZMA1, lc=lp=pb=0)', async () => {
    const image = mkjffs2('lzma-base.img', ['-l', '-p']);
    const log = findDirent(image, 'text.log');
    const text = Buffer.from('lzma compressed page '.repeat(190)).subarray(0, 4000);
    const packed = await new Promise<Buffer>((resolve, reject) => {
      const parts: Buffer[] = [];
      const enc = lzma().createStream('rawEncoder', { filters: [{ id: lzma().FILTER_LZMA1, options: { lc: 0, lp: 0, pb: 0, dictSize: 0x2000 } }] });
      enc.on('data', (c: Buffer) => parts.push(c)).on('end', () => resolve(Buffer.concat(parts))).on('error', reject);
      enc.end(text);
    });
    expect(packed.length).toBeLessThan(text.length / 4);
    const update = inode(log.ino, 9000, 0o100644, text.length, 0, packed, 8, text.length);
    const ex = await extractWith(jffs2Handler, Buffer.concat([image, update, Buffer.alloc(ERASE - update.length, 0xff)]));
    expect(ex.sink.problems).toEqual([]);
    expect(readFileSync(join(ex.root, 'text.log')).equals(text)).toBe(true);
    cleanup(ex.root);
  });

  it('rejects garbage quietly and survives truncation and byte flips', async () => {
    expect(await jffs2Handler.chunk(new BufferReader(noise(10_000, 4)), 0)).toBeNull();
    const image = mkjffs2('fuzz.img', ['-l']);
    const cut = await extractWith(jffs2Handler, image.subarray(0, Math.floor(image.length * 0.6)));
    expect(cut.error).toBeUndefined();
    expect(cut.chunk!.end).toBeLessThanOrEqual(Math.floor(image.length * 0.6));
    expect(cut.sink.entries.length).toBeGreaterThan(0);
    cleanup(cut.root);
    await expectCorruptionsRefused(jffs2Handler, image, 12, 30, 16);
    // A directory entry making the root its own child is reported, not followed.
    const loop = Buffer.concat([image, dirent(findDirent(image, 'a').ino, 5000, findDirent(image, 'deep').ino, 'up')]);
    const looped = await extractWith(jffs2Handler, loop);
    expect(looped.sink.problems.some((p) => p.message.includes('loop'))).toBe(true);
    cleanup(looped.root);
  });
});

describe('jffs2 handler: rubin compression', () => {
  const text = Buffer.from('#!/bin/sh\n# rubin was the JFFS2 default before zlib\nexec /sbin/init "$@"\n'.repeat(40));
  const binary = Buffer.concat([Buffer.alloc(600), noise(1500, 21), Buffer.alloc(400, 0x11)]);

  it('round-trips the decoders against an encoder written from the kernel description', () => {
    for (const data of [text, binary, Buffer.alloc(4096), Buffer.from('x')]) {
      expect(dynrubinDecompress(dynrubinEncode(data), data.length).equals(data)).toBe(true);
      expect(rubinmipsDecompress(rubinEncode(data, MIPS_DIVIDER, MIPS_BITS), data.length).equals(data)).toBe(true);
    }
    // Text compresses with a per-node table.
    expect(dynrubinEncode(text).length).toBeLessThan(text.length * 0.8);
  });

  it('extracts dynrubin nodes numbered either way (5 before Linux 2.6, 3 since) and rubinmips nodes', async () => {
    const mips = rubinEncode(binary, MIPS_DIVIDER, MIPS_BITS);
    expect(mips.subarray(0, 8).includes(0)).toBe(true); // a rubinmips node: no dynrubin table in front
    const half = text.length / 2;
    const image = Buffer.concat([
      dirent(1, 1, 2, 'old.sh'),
      inode(2, 1, 0o100755, text.length, 0, dynrubinEncode(text), 5, text.length),
      dirent(1, 2, 3, 'new.sh'),
      // Two nodes, one per half, as pages are written.
      inode(3, 1, 0o100644, text.length, 0, dynrubinEncode(text.subarray(0, half)), 3, half),
      inode(3, 2, 0o100644, text.length, half, dynrubinEncode(text.subarray(half)), 3, half),
      dirent(1, 3, 4, 'mips.bin'),
      inode(4, 1, 0o100644, binary.length, 0, mips, 3, binary.length),
    ]);
    const ex = await extractWith(jffs2Handler, Buffer.concat([image, Buffer.alloc(ERASE - image.length, 0xff)]));
    expect(ex.sink.problems).toEqual([]);
    expect(readFileSync(join(ex.root, 'old.sh')).equals(text)).toBe(true);
    expect(entry(ex, 'old.sh')?.meta.mode).toBe(0o755);
    expect(readFileSync(join(ex.root, 'new.sh')).equals(text)).toBe(true);
    expect(readFileSync(join(ex.root, 'mips.bin')).equals(binary)).toBe(true);
    cleanup(ex.root);
  });

  it('reports a rubin node cut short or claiming an absurd size, and zero-fills it', async () => {
    const packed = dynrubinEncode(text);
    const image = Buffer.concat([
      dirent(1, 1, 2, 'cut.sh'),
      inode(2, 1, 0o100644, text.length, 0, packed.subarray(0, packed.length >> 1), 5, text.length),
      dirent(1, 2, 3, 'liar.sh'),
      inode(3, 1, 0o100644, 100, 0, packed, 5, 0x7fffffff),
    ]);
    const ex = await extractWith(jffs2Handler, image);
    expect(ex.error).toBeUndefined();
    const messages = ex.sink.problems.map((p) => p.message).join('\n');
    expect(messages).toMatch(/cut\.sh: rubin: input of \d+ bytes ends before 2920 bytes are decoded; zero-filled/);
    expect(messages).toMatch(/liar\.sh: node at \d+ claims 2147483647 bytes of rubin data; zero-filled/);
    expect(readFileSync(join(ex.root, 'cut.sh')).equals(Buffer.alloc(text.length))).toBe(true);
    cleanup(ex.root);
  });
});

/** An xattr node (a name/value "datum") with valid CRCs: prefix 1 user., 2 security., 5 trusted. */
function xattrNode(xid: number, version: number, prefix: number, name: string, value: Buffer): Buffer {
  const data = Buffer.concat([Buffer.from(name), Buffer.alloc(1), value]);
  const body = Buffer.alloc(20);
  body.writeUInt32LE(xid, 0);
  body.writeUInt32LE(version, 4);
  body[8] = prefix;
  body[9] = name.length;
  body.writeUInt16LE(value.length, 10);
  body.writeUInt32LE(crc(data), 12);
  return node(0xe008, body, data, 16, 28);
}

/** An xref node binding datum `xid` to inode `ino`; an odd sequence number deletes the binding. */
function xrefNode(ino: number, xid: number, seq: number): Buffer {
  const body = Buffer.alloc(16);
  body.writeUInt32LE(ino, 0);
  body.writeUInt32LE(xid, 4);
  body.writeUInt32LE(seq, 8);
  return node(0xe009, body, Buffer.alloc(0), 12, 24);
}

describe.runIf(enabled)('jffs2 handler: extended attributes', () => {
  // VFS_CAP_REVISION_2 with cap_net_raw permitted and effective.
  const capability = Buffer.from('0100000200200000000000000000000000000000', 'hex');

  it('attaches the attributes mkfs.jffs2 --with-xattr stores: SELinux labels as text, capabilities as base64', async () => {
    const dir = join(work, 'xattr-src');
    writeTree(dir, [
      { path: 'bin', kind: 'directory', mode: 0o755 },
      { path: 'bin/ping', kind: 'file', content: noise(3000, 5), mode: 0o4755 },
      { path: 'etc', kind: 'directory', mode: 0o755 },
      { path: 'etc/shadow', kind: 'file', content: Buffer.from('root:*:19000:0:99999:7:::\n'), mode: 0o600 },
    ]);
    try {
      run('setfattr', ['-n', 'security.capability', '-v', `0s${capability.toString('base64')}`, join(dir, 'bin/ping')]);
      run('setfattr', ['-n', 'security.selinux', '-v', 'system_u:object_r:ping_exec_t:s0', join(dir, 'bin/ping')]);
      run('setfattr', ['-n', 'security.selinux', '-v', 'system_u:object_r:etc_t:s0', join(dir, 'etc')]);
      run('setfattr', ['-n', 'user.origin', '-v', 'vendor', join(dir, 'etc/shadow')]);
    } catch (error) {
      console.warn(`NOTICE: cannot set extended attributes here (${String(error).split('\n')[0]}); the JFFS2 xattr check is skipped`);
      return;
    }
    for (const [flag, endian] of [['-l', 'le'], ['-b', 'be']] as const) {
      const out = join(work, `xattr-${endian}.img`);
      run('mkfs.jffs2', ['-r', dir, '-o', out, '-e', String(ERASE), flag, '--with-xattr']);
      const ex = await extractWith(jffs2Handler, out);
      expect(ex.sink.problems, endian).toEqual([]);
      expect(entry(ex, 'bin/ping')?.meta.meta?.xattrs, endian).toEqual({
        'security.capability': `base64:${capability.toString('base64')}`,
        'security.selinux': 'system_u:object_r:ping_exec_t:s0',
      });
      expect(entry(ex, 'bin/ping')?.meta.meta?.capabilities).toBe('cap_net_raw=ep');
      expect(entry(ex, 'etc')?.meta.meta).toEqual({ xattrs: { 'security.selinux': 'system_u:object_r:etc_t:s0' } });
      expect(entry(ex, 'etc/shadow')?.meta.meta?.xattrs).toEqual({ 'user.origin': 'vendor' });
      expect(readFileSync(join(ex.root, 'etc/shadow'), 'utf8')).toBe('root:*:19000:0:99999:7:::\n');
      cleanup(ex.root);
    }
  });

  it('lets the newest xattr version and xref win: rewritten values and removed attributes', async () => {
    const image = Buffer.concat([
      dirent(1, 1, 2, 'file'),
      inode(2, 1, 0o100644, 2, 0, Buffer.from('hi')),
      xattrNode(1, 1, 2, 'selinux', Buffer.from('system_u:object_r:old_t:s0\0')),
      xattrNode(1, 2, 2, 'selinux', Buffer.from('system_u:object_r:new_t:s0\0')),
      xattrNode(2, 1, 1, 'gone', Buffer.from('x')),
      xattrNode(3, 1, 5, 'deleted-datum', Buffer.from('y')),
      xattrNode(3, 0xffffffff, 5, 'deleted-datum', Buffer.from('y')),
      xrefNode(2, 1, 2),
      xrefNode(2, 2, 4),
      xrefNode(2, 2, 5), // removed
      xrefNode(2, 3, 6),
      xrefNode(2, 9, 8), // names a datum that is not there
    ]);
    const broken = xattrNode(4, 1, 1, 'broken', Buffer.from('z'));
    broken[34] ^= 1; // a byte of its name: the data CRC no longer matches
    const ex = await extractWith(jffs2Handler, Buffer.concat([image, broken, xrefNode(2, 4, 2)]));
    expect(entry(ex, 'file')?.meta.meta).toEqual({ xattrs: { 'security.selinux': 'system_u:object_r:new_t:s0' } });
    expect(ex.sink.problems.map((p) => p.message)).toEqual(['JFFS2: 1 nodes with a bad CRC ignored']);
    cleanup(ex.root);
  });
});
