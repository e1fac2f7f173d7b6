import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { trxHandler } from '../../../../src/engine/unpack/firmware/trx.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';

/** A TRX built from the layout in OpenWrt's trx.c: CRC = complement of CRC-32 over [12, length). */
function buildTrx(parts: Buffer[], version = 1): Buffer {
  const headerSize = version === 2 ? 32 : 28;
  const header = Buffer.alloc(headerSize);
  const offsets: number[] = [];
  let at = headerSize;
  for (const part of parts) {
    offsets.push(at);
    at += part.length;
  }
  const image = Buffer.concat([header, ...parts]);
  image.write('HDR0', 0, 'latin1');
  image.writeUInt32LE(image.length, 4);
  image.writeUInt16LE(0, 12);
  image.writeUInt16LE(version, 14);
  offsets.forEach((o, i) => image.writeUInt32LE(o, 16 + 4 * i));
  image.writeUInt32LE(~zlib.crc32(image.subarray(12)) >>> 0, 8);
  return image;
}

const kernel = Buffer.concat([Buffer.from('5d00008000', 'hex'), Buffer.alloc(8, 0xff), Buffer.alloc(200, 7)]);
const rootfs = Buffer.concat([Buffer.from('hsqs'), Buffer.alloc(300, 9)]);

describe('trx', () => {
  it('splits a v1 image into its partitions', async () => {
    const image = buildTrx([kernel, rootfs]);
    const out = await runHandler(trxHandler, new BufferReader(Buffer.concat([image, Buffer.alloc(64, 0xff)])));
    expect(out.chunk).toMatchObject({ start: 0, end: image.length, meta: { version: 1 } });
    expect(out.entries.map((e) => e.path)).toEqual(['partition-0.lzma', 'partition-1']);
    expect(await out.read('partition-0.lzma')).toEqual(kernel);
    expect(await out.read('partition-1')).toEqual(rootfs);
    await out.cleanup();
  });

  it('reads the fourth offset of a v2 image', async () => {
    const extra = Buffer.from('binary header part');
    const image = buildTrx([kernel, rootfs, Buffer.from('third'), extra], 2);
    const out = await runHandler(trxHandler, new BufferReader(image));
    expect(out.entries).toHaveLength(4);
    expect(await out.read('partition-3')).toEqual(extra);
    await out.cleanup();
  });

  it('finds a TRX at an offset', async () => {
    const image = buildTrx([kernel]);
    const out = await runHandler(trxHandler, new BufferReader(Buffer.concat([Buffer.alloc(100), image])), 100);
    expect(out.chunk).toMatchObject({ start: 100, end: 100 + image.length });
    await out.cleanup();
  });

  it('rejects a bad CRC and truncation with a reason, and implausible headers quietly', async () => {
    const image = buildTrx([kernel, rootfs]);
    const corrupt = Buffer.from(image);
    corrupt[image.length - 1] ^= 1;
    await expect(trxHandler.chunk(new BufferReader(corrupt), 0)).rejects.toThrow(/CRC32 mismatch/);
    await expect(trxHandler.chunk(new BufferReader(image.subarray(0, 100)), 0)).rejects.toThrow(/truncated/);
    await expectTruncationsRefused(trxHandler, image);
    const badOffsets = Buffer.from(image);
    badOffsets.writeUInt32LE(image.length + 10, 20);
    expect(await trxHandler.chunk(new BufferReader(badOffsets), 0)).toBeNull();
    expect(await trxHandler.chunk(new BufferReader(Buffer.from('HDR0 just text here, not a header')), 0)).toBeNull();
  });
});
