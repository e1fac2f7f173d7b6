import { execFileSync } from 'node:child_process';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { armZimageHandler } from '../../../../src/engine/unpack/firmware/arm-zimage.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';

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
});
