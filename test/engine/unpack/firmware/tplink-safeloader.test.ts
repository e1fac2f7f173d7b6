import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tplinkSafeloaderHandler } from '../../../../src/engine/unpack/firmware/tplink-safeloader.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';

const SALT = Buffer.from('7a2b15ed9b98596de504ab44ac2a9f4e', 'hex');

/** A factory image laid out as tplink-safeloader's generate_factory_image and put_partitions describe. */
function buildFactory(parts: Array<[string, Buffer]>, vendor = 'CPE510(TP-LINK|UN|N300-5):1.0\r\n'): Buffer {
  const total = 0x1814 + parts.reduce((n, [, d]) => n + d.length, 0);
  const image = Buffer.alloc(total, 0xff);
  image.writeUInt32BE(total, 0);
  image.writeUInt32BE(vendor.length, 0x14);
  image.write(vendor, 0x18, 'latin1');
  let table = '';
  let base = 0x800;
  for (const [name, data] of parts) {
    data.copy(image, 0x1014 + base);
    table += `fwup-ptn ${name} base 0x${base.toString(16).padStart(5, '0')} size 0x${data.length.toString(16).padStart(5, '0')}\t\r\n`;
    base += data.length;
  }
  image.write(`${table}\0`, 0x1014, 'latin1');
  createHash('md5').update(SALT).update(image.subarray(0x14)).digest().copy(image, 4);
  return image;
}

const partitionTable = Buffer.from('partition fs-uboot base 0x00000 size 0x20000\n\0');
const kernel = Buffer.concat([Buffer.from('27051956', 'hex'), Buffer.alloc(300, 1)]);
const rootfs = Buffer.concat([Buffer.from('hsqs'), Buffer.alloc(500, 2)]);
const supportList = Buffer.from('SupportList:\r\nCPE510(TP-LINK|UN|N300-5):1.0\r\n');

describe('tplink-safeloader', () => {
  it('writes every partition of a factory image by name', async () => {
    const image = buildFactory([['partition-table', partitionTable], ['os-image', kernel], ['file-system', rootfs], ['support-list', supportList]]);
    const out = await runHandler(tplinkSafeloaderHandler, new BufferReader(Buffer.concat([image, Buffer.alloc(100)])));
    expect(out.chunk).toMatchObject({ start: 0, end: image.length, meta: { vendor: 'CPE510(TP-LINK|UN|N300-5):1.0', md5: 'valid' } });
    expect(out.entries.map((e) => e.path)).toEqual(['partition-table', 'os-image', 'file-system', 'support-list']);
    expect(await out.read('os-image')).toEqual(kernel);
    expect(await out.read('file-system')).toEqual(rootfs);
    expect(await out.read('support-list')).toEqual(supportList);
    expect(out.problems).toEqual([]);
    await out.cleanup();
  });

  it('warns on an MD5 mismatch and rejects truncation and bad partitions with a reason', async () => {
    const image = buildFactory([['partition-table', partitionTable], ['os-image', kernel]]);
    const tampered = Buffer.from(image);
    tampered[tampered.length - 1] ^= 1;
    const out = await runHandler(tplinkSafeloaderHandler, new BufferReader(tampered));
    expect(out.chunk.meta).toMatchObject({ md5: 'mismatch' });
    expect(out.problems[0]).toMatchObject({ kind: 'warning' });
    await out.cleanup();
    await expect(tplinkSafeloaderHandler.chunk(new BufferReader(image.subarray(0, image.length - 1)), 0)).rejects.toThrow(/truncated/);
    await expectTruncationsRefused(tplinkSafeloaderHandler, image);
    const overrun = Buffer.from(image);
    overrun.write('fwup-ptn partition-table base 0x00800 size 0xfffff', 0x1014, 'latin1');
    await expect(tplinkSafeloaderHandler.chunk(new BufferReader(overrun), 0)).rejects.toThrow(/runs past the image/);
  });
});
