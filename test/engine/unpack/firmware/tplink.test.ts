import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tplinkHandler } from '../../../../src/engine/unpack/firmware/tplink.js';
import { BufferReader, FileReader } from '../../../../src/engine/unpack/reader.js';
import { corpus, haveShared } from '../../../support/shared.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';

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
