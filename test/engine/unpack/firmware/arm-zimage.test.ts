import { execFileSync } from 'node:child_process';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { gzipHandler } from '../../../../src/engine/unpack/compression/gzip.js';
import { FormatError } from '../../../../src/engine/format-error.js';
import { armZimageHandler } from '../../../../src/engine/unpack/firmware/arm-zimage.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { expectTruncationsRefused, extractFiles, runHandler } from '../extract-harness.js';

const vmlinux = Buffer.concat([Buffer.from('ARM Linux kernel '), Buffer.alloc(4000, 0x2a)]);

/** A zImage as head.S lays it out: 9 NOP-like words + branch, magic, start, end, endian marker, then code and piggy data. */
function buildZimage(payload: Buffer): Buffer {
  const header = Buffer.alloc(0x40, 0);
  for (let i = 0; i < 9; i++) header.writeUInt32LE(0xe1a00000, i * 4); // mov r0, r0
  header.writeUInt32LE(0xea000003, 0x20); // b 1f
  header.writeUInt32LE(0x016f2818, 0x24);
  header.writeUInt32LE(0, 0x28);
  header.writeUInt32LE(0x04030201, 0x30);
  const code = Buffer.alloc(0x800, 0xe3); // stands in for the decompressor
  const size = Buffer.alloc(4);
  size.writeUInt32LE(vmlinux.length);
  const image = Buffer.concat([header, code, payload, size]);
  image.writeUInt32LE(image.length, 0x2c);
  return image;
}

describe('arm-zimage', () => {
  it('finds the compressed kernel after the decompressor', async () => {
    for (const [ext, packed] of [
      ['gz', zlib.gzipSync(vmlinux)],
      ['xz', execFileSync('xz', ['-c', '--check=crc32'], { input: vmlinux })],
      ['lzma', execFileSync('lzma', ['-c'], { input: vmlinux })],
    ] as const) {
      const image = buildZimage(packed);
      const out = await runHandler(armZimageHandler, new BufferReader(Buffer.concat([image, Buffer.alloc(64)])));
      expect(out.chunk).toMatchObject({ start: 0, end: image.length, meta: { endian: 'le', payload: { offset: 0x840, ext } } });
      const written = await out.read(`vmlinux.${ext}`);
      expect(written.subarray(0, packed.length)).toEqual(packed);
      await out.cleanup();
    }
  });

  it('reports a zImage without a payload, rejects truncation with a reason', async () => {
    const bare = buildZimage(Buffer.alloc(100, 0x11));
    const out = await runHandler(armZimageHandler, new BufferReader(bare));
    expect(out.entries).toEqual([]);
    expect(out.problems[0]?.message).toMatch(/no compressed kernel/);
    await out.cleanup();
    const image = buildZimage(zlib.gzipSync(vmlinux));
    await expect(armZimageHandler.chunk(new BufferReader(image.subarray(0, image.length - 10)), 0)).rejects.toThrow(/truncated/);
    await expectTruncationsRefused(armZimageHandler, image);
    const silly = Buffer.from(image);
    silly.writeUInt32LE(0x10, 0x2c);
    expect(await armZimageHandler.chunk(new BufferReader(silly), 0)).toBeNull();
  });

  it('hands a truncated or corrupted payload on byte for byte, for the gzip handler to reject with a reason', async () => {
    const packed = zlib.gzipSync(Buffer.concat([vmlinux, Buffer.from(Array.from({ length: 20_000 }, (_, i) => (i * 7919) >> 3))]));
    const corrupted = Buffer.from(packed);
    corrupted.fill(0x5a, 200, 260);
    for (const payload of [packed.subarray(0, packed.length >> 1), corrupted]) {
      const image = buildZimage(payload);
      const out = await runHandler(armZimageHandler, new BufferReader(image));
      expect(out.chunk).toMatchObject({ end: image.length, meta: { payload: { offset: 0x840, ext: 'gz' } } });
      const written = await out.read('vmlinux.gz');
      expect(written.subarray(0, payload.length)).toEqual(payload);
      const decoded = await extractFiles(gzipHandler, written, 0, { maxTotalBytes: 1 << 26 }).catch((e: unknown) => e);
      expect(decoded).toBeInstanceOf(FormatError);
      await out.cleanup();
    }
  });

  it('rejects an image cut inside its payload, and reports a payload whose magic is corrupt', async () => {
    const packed = zlib.gzipSync(vmlinux);
    const image = buildZimage(packed);
    await expect(armZimageHandler.chunk(new BufferReader(image.subarray(0, 0x840 + (packed.length >> 1))), 0)).rejects.toThrow(
      new RegExp(`truncated, image of ${image.length} bytes runs past the file`),
    );
    const badMagic = Buffer.from(image);
    badMagic[0x841] = 0x00; // 1f 8b -> 1f 00
    const out = await runHandler(armZimageHandler, new BufferReader(badMagic));
    expect(out.chunk).toMatchObject({ end: image.length, meta: { payload: undefined } });
    expect(out.entries).toEqual([]);
    expect(out.problems.map((p) => p.message)).toEqual(['ARM zImage: no compressed kernel found after the decompressor']);
    await out.cleanup();
  });
});
