import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tplinkHandler } from '../../../../src/engine/unpack/firmware/tplink.js';
import { BufferReader, FileReader } from '../../../../src/engine/unpack/reader.js';
import { corpus, haveShared } from '../../../support/shared.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';
import { expectCorruptionsRefused } from '../filesystems/fs-image-harness.js';

const SALT = Buffer.from('dcd73aa5c39598fbddf9e7f40eae4738', 'hex');

/** A header as mktplinkfw writes it (big-endian fields, MD5 over the image with the salt in the MD5 field). */
function buildImage(kernel: Buffer, rootfs: Buffer): Buffer {
  const header = Buffer.alloc(0x200);
  header.writeUInt32BE(1, 0);
  header.write('TP-LINK Technologies', 4, 'latin1');
  header.write('ver. 1.0', 28, 'latin1');
  header.writeUInt32BE(0x07200101, 0x40);
  header.writeUInt32BE(1, 0x44);
  header.writeUInt32BE(0x80002000, 0x74);
  header.writeUInt32BE(0x80002000, 0x78);
  const rootfsOffset = 0x200 + kernel.length;
  const image = Buffer.concat([header, kernel, rootfs]);
  image.writeUInt32BE(image.length, 0x7c);
  image.writeUInt32BE(0x200, 0x80);
  image.writeUInt32BE(kernel.length, 0x84);
  image.writeUInt32BE(rootfsOffset, 0x88);
  image.writeUInt32BE(rootfs.length, 0x8c);
  image.writeUInt16BE(3, 0x98);
  image.writeUInt16BE(14, 0x9a);
  image.writeUInt16BE(1, 0x9c);
  SALT.copy(image, 0x4c);
  createHash('md5').update(image).digest().copy(image, 0x4c);
  return image;
}

const SALT_V2 = Buffer.from('dcd73aa5c39598fbdcf9e7f40eae4737', 'hex');
const SALT_V2_BOOT = Buffer.from('8cef335fd5c5cefaac9c28dab2e90f42', 'hex');

interface V2Options {
  headerVersion?: 2 | 3;
  /** The flash layout's maximum length, written as the firmware length. */
  maxLength?: number;
  rootfsOffset?: number;
  /** mktplinkfw2 -s: the image ends after the rootfs instead of being padded to the maximum length. */
  strip?: boolean;
  /** A bootloader after the header, followed by this inner image (as TP-Link's v3 "up_boot" images). */
  boot?: { loader: Buffer; inner: Buffer };
  /** mktplinkfw2 -j: JFFS2 end marks (de ad c0 de) at the next 4 KiB and 64 KiB boundaries after the rootfs. */
  jffs2Marks?: number[];
}

/** A v2/v3 image as mktplinkfw2 writes it: a 0xFF-filled header, version bytes 0x02000000, markers, MD5 with its salt. */
function buildV2(kernel: Buffer, rootfs: Buffer, { headerVersion = 2, maxLength = 0x2000, rootfsOffset = 0x400, strip = false, boot, jffs2Marks = [] }: V2Options = {}): Buffer {
  const body = boot
    ? Buffer.concat([boot.loader, Buffer.alloc(0x400 - boot.loader.length, 0xff), boot.inner])
    : Buffer.concat([kernel, Buffer.alloc(rootfsOffset - 0x200 - kernel.length, 0xff), rootfs]);
  const header = Buffer.alloc(0x200, 0xff);
  header.writeUInt32BE(headerVersion << 24, 0);
  header.fill(0, 4, 0x34);
  header.write('ver. 1.0', 4, 'latin1');
  header.writeUInt32BE(0x89700001, 0x34);
  header.writeUInt32BE(1, 0x38);
  header.writeUInt32BE(0, 0x3c);
  header.writeUInt32BE(0, 0x50);
  header.writeUInt32BE(0x80002000, 0x68);
  header.writeUInt32BE(0x800061b0, 0x6c);
  header.writeUInt32BE(maxLength, 0x70);
  header.writeUInt32BE(0x200, 0x74);
  header.writeUInt32BE(kernel.length, 0x78);
  header.writeUInt32BE(rootfsOffset, 0x7c);
  header.writeUInt32BE(rootfs.length, 0x80);
  header.writeUInt32BE(0, 0x84);
  header.writeUInt32BE(boot ? boot.loader.length : 0, 0x88);
  header.writeUInt16BE(0x55aa, 0x8c);
  header[0x8e] = 1;
  header[0x8f] = 0;
  header[0x90] = 0xa5;
  header.set([0, 6, 3], 0x91);
  let image = Buffer.concat([header, body]);
  for (const at of jffs2Marks) image = Buffer.concat([image, Buffer.alloc(at - image.length, 0xff), Buffer.from('deadc0de', 'hex')]);
  if (!strip) image = Buffer.concat([image, Buffer.alloc(maxLength - image.length, 0xff)]);
  (boot ? SALT_V2_BOOT : SALT_V2).copy(image, 0x40);
  createHash('md5').update(image).digest().copy(image, 0x40);
  return image;
}

const kernel = Buffer.concat([Buffer.from('5d00008000ffffffffffffffff', 'hex'), Buffer.alloc(100, 3)]);
const rootfs = Buffer.concat([Buffer.from('hsqs'), Buffer.alloc(200, 5)]);

describe('tplink', () => {
  it('splits kernel and rootfs and checks the MD5', async () => {
    const image = buildImage(kernel, rootfs);
    const out = await runHandler(tplinkHandler, new BufferReader(image));
    expect(out.chunk).toMatchObject({ start: 0, end: image.length, meta: { hwId: '07200101', version: '3.14.1', md5: 'valid', fwVersion: 'ver. 1.0' } });
    expect(await out.read('kernel.lzma')).toEqual(kernel);
    expect(await out.read('rootfs')).toEqual(rootfs);
    expect(out.problems).toEqual([]);
    await out.cleanup();
  });

  it('warns on an MD5 mismatch, rejects truncation and bad offsets with a reason', async () => {
    const image = buildImage(kernel, rootfs);
    const tampered = Buffer.from(image);
    tampered[image.length - 1] ^= 1;
    const out = await runHandler(tplinkHandler, new BufferReader(tampered));
    expect(out.chunk.meta).toMatchObject({ md5: 'mismatch' });
    expect(out.problems[0]).toMatchObject({ kind: 'warning' });
    await out.cleanup();
    await expect(tplinkHandler.chunk(new BufferReader(image.subarray(0, 300)), 0)).rejects.toThrow(/truncated/);
    await expectTruncationsRefused(tplinkHandler, image);
    const badOffset = Buffer.from(image);
    badOffset.writeUInt32BE(0x10, 0x80);
    await expect(tplinkHandler.chunk(new BufferReader(badOffset), 0)).rejects.toThrow(/kernel offset/);
    const notVendor = Buffer.from(image);
    notVendor.write('XX', 4);
    expect(await tplinkHandler.chunk(new BufferReader(notVendor), 0)).toBeNull();
  });

  it('reads v2 images padded to the layout length or stripped after the rootfs', async () => {
    for (const strip of [false, true]) {
      const image = buildV2(kernel, rootfs, { strip });
      const out = await runHandler(tplinkHandler, new BufferReader(Buffer.concat([image, Buffer.alloc(100, 0xee)])));
      expect(out.chunk).toMatchObject({
        start: 0,
        end: image.length,
        meta: { headerVersion: 2, fwVersion: 'ver. 1.0', hwId: '89700001', version: '0.6.3-1.0', md5: 'valid', kernelEntry: 0x800061b0 },
      });
      expect(await out.read('kernel.lzma')).toEqual(kernel);
      expect(await out.read('rootfs')).toEqual(rootfs);
      expect(out.problems).toEqual([]);
      await out.cleanup();
    }
  });

  it('finds where a stripped v2 image with JFFS2 end marks ends inside a larger file', async () => {
    // The rootfs ends at 0x400 + 205: marks at 0x1000 and at 0x10000 (both within the 0x20000 layout).
    const image = buildV2(kernel, rootfs, { strip: true, maxLength: 0x20000, jffs2Marks: [0x1000, 0x10000] });
    expect(image.length).toBe(0x10004);
    const out = await runHandler(tplinkHandler, new BufferReader(Buffer.concat([Buffer.alloc(0x200, 0x11), image, Buffer.alloc(0x300, 0x22)])), 0x200);
    expect(out.chunk).toMatchObject({ start: 0x200, end: 0x200 + image.length, meta: { md5: 'valid' } });
    await out.cleanup();
  });

  it('reads a v3 image with a bootloader and its inner firmware', async () => {
    const inner = buildV2(kernel, rootfs, { headerVersion: 3, strip: true });
    const loader = Buffer.concat([Buffer.from('27051956', 'hex'), Buffer.alloc(60, 1)]);
    const image = buildV2(kernel, rootfs, { headerVersion: 3, boot: { loader, inner }, maxLength: 0x1000 });
    const out = await runHandler(tplinkHandler, new BufferReader(image));
    expect(out.chunk).toMatchObject({ end: image.length, meta: { headerVersion: 3, md5: 'valid', boot: [0x200, 0x200 + loader.length] } });
    expect(out.entries.map((e) => e.path)).toEqual(['bootloader', 'firmware']);
    expect((await out.read('firmware')).subarray(0, inner.length)).toEqual(inner);
    await out.cleanup();
    const nested = await runHandler(tplinkHandler, new BufferReader(image), 0x600);
    expect(nested.chunk).toMatchObject({ start: 0x600, end: 0x600 + inner.length, meta: { md5: 'valid' } });
    await nested.cleanup();
  });

  it('refuses truncated v2 images, payloads past the length field, and lookalikes without the markers', async () => {
    const image = buildV2(kernel, rootfs, { strip: true });
    await expectTruncationsRefused(tplinkHandler, image);
    await expectCorruptionsRefused(tplinkHandler, image, 40, (seed) => 1 + (seed % 6), 4);
    await expect(tplinkHandler.chunk(new BufferReader(image.subarray(0, 0x300)), 0)).rejects.toThrow(/truncated/);
    const short = Buffer.from(image);
    short.writeUInt32BE(0x300, 0x70);
    await expect(tplinkHandler.chunk(new BufferReader(short), 0)).rejects.toThrow(/past the firmware length/);
    const tampered = Buffer.from(image);
    tampered[0x210] ^= 1;
    const out = await runHandler(tplinkHandler, new BufferReader(tampered));
    expect(out.chunk.meta).toMatchObject({ md5: 'mismatch' });
    await out.cleanup();
    const noMarker = Buffer.from(image);
    noMarker[0x90] = 0;
    expect(await tplinkHandler.chunk(new BufferReader(noMarker), 0)).toBeNull();
  });

  it.runIf(haveShared('corpus', 'tplink-tl-mr3020-v1_3.17.2_test.tpl'))('reads the TL-MR3020 image with its bootloader and inner firmware', async () => {
    const reader = await FileReader.open(corpus('tplink-tl-mr3020-v1_3.17.2_test.tpl'));
    const outer = await runHandler(tplinkHandler, reader);
    expect(outer.chunk).toMatchObject({ start: 0, end: 4063744, meta: { hwId: '30200001', version: '3.17.2', md5: 'valid' } });
    expect(outer.entries.map((e) => [e.path, e.size])).toEqual([
      ['bootloader', 0xbd0c],
      ['firmware', 4063744 - 0x20200],
    ]);
    // The U-Boot uImage sits inside the bootloader region.
    expect((await outer.read('bootloader')).readUInt32BE(0x3c80 - 0x200)).toBe(0x27051956);
    await outer.cleanup();
    const inner = await runHandler(tplinkHandler, reader, 0x20200);
    expect(inner.chunk).toMatchObject({ end: 4063744, meta: { md5: 'valid' } });
    expect(inner.entries.map((e) => [e.path, e.size])).toEqual([
      ['kernel.lzma', 0xd9e1a],
      ['rootfs', 0x1000],
    ]);
    expect((await inner.read('rootfs')).subarray(0, 4).toString()).toBe('hsqs');
    await inner.cleanup();
    await reader.close();
  });
});
