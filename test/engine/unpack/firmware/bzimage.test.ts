import { execFileSync } from 'node:child_process';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { xz } from '../../../../src/engine/unpack/codecs/blocks.js';
import { bzimageHandler } from '../../../../src/engine/unpack/firmware/bzimage.js';
import { BufferReader, FileReader } from '../../../../src/engine/unpack/reader.js';
import { corpus, haveShared } from '../../../support/shared.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';

const vmlinux = Buffer.concat([Buffer.from('\x7fELF'), Buffer.alloc(5000, 0x90)]);

/** A minimal bzImage laid out as boot.rst describes: 4 setup sectors + boot sector, then the payload. */
function buildBzImage(payload: Buffer, version = 0x020f): Buffer {
  const setupSects = 4;
  const setup = Buffer.alloc((setupSects + 1) * 512);
  setup[0x1f1] = setupSects;
  setup.writeUInt16LE(0xaa55, 0x1fe);
  setup.write('HdrS', 0x202, 'latin1');
  setup.writeUInt16LE(version, 0x206);
  setup.writeUInt16LE(0x300, 0x20e);
  setup.write('6.1.0-test (builder@host) #1 SMP', 0x200 + 0x300, 'latin1');
  const stub = Buffer.alloc(0x40, 0xcc);
  const body = Buffer.concat([stub, payload]);
  const padded = Buffer.concat([body, Buffer.alloc((16 - (body.length % 16)) % 16)]);
  setup.writeUInt32LE(padded.length / 16, 0x1f4);
  setup.writeUInt32LE(stub.length, 0x248);
  setup.writeUInt32LE(payload.length, 0x24c);
  return Buffer.concat([setup, padded]);
}

function sizeAppended(data: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeUInt32LE(vmlinux.length);
  return Buffer.concat([data, size]);
}

describe('bzimage', () => {
  it('extracts an xz payload without its appended size, and the kernel version', async () => {
    const packed = execFileSync('xz', ['-c', '--check=crc32'], { input: vmlinux });
    const image = buildBzImage(sizeAppended(packed));
    const out = await runHandler(bzimageHandler, new BufferReader(Buffer.concat([image, Buffer.alloc(32)])));
    expect(out.chunk).toMatchObject({ start: 0, end: image.length, meta: { protocol: '2.15', kernelVersion: '6.1.0-test (builder@host) #1 SMP' } });
    expect(out.entries.map((e) => e.path)).toEqual(['vmlinux.xz']);
    expect(out.entry('vmlinux.xz').meta.meta).toMatchObject({ uncompressedSize: vmlinux.length });
    expect(await xz(await out.read('vmlinux.xz'))).toEqual(vmlinux);
    await out.cleanup();
  });

  it('keeps a gzip payload whole (gzip stores its size itself)', async () => {
    const packed = zlib.gzipSync(vmlinux);
    const out = await runHandler(bzimageHandler, new BufferReader(buildBzImage(packed)));
    expect(zlib.gunzipSync(await out.read('vmlinux.gz'))).toEqual(vmlinux);
    await out.cleanup();
  });

  it('keeps the protected-mode part of old images whole', async () => {
    const out = await runHandler(bzimageHandler, new BufferReader(buildBzImage(vmlinux, 0x0204)));
    expect(out.entries.map((e) => e.path)).toEqual(['protected-mode.bin']);
    await out.cleanup();
  });

  it('takes a file that ends within syssize\'s last paragraph as whole (iPXE .lkrn, Memtest86+)', async () => {
    const old = buildBzImage(vmlinux, 0x0207);
    const sysSize = old.readUInt32LE(0x1f4) * 16;
    const unpadded = old.subarray(0, old.length - 15);
    const out = await runHandler(bzimageHandler, new BufferReader(unpadded));
    expect(out.chunk).toMatchObject({ start: 0, end: unpadded.length });
    expect((await out.read('protected-mode.bin')).length).toBe(sysSize - 15);
    await out.cleanup();
    // a whole paragraph missing is a truncated image
    await expect(bzimageHandler.chunk(new BufferReader(old.subarray(0, old.length - 16)), 0)).rejects.toThrow(/truncated, kernel of \d+ bytes/);
  });

  it('keeps the protected-mode part whole when the header locates no payload (Memtest86+)', async () => {
    const image = buildBzImage(vmlinux, 0x020c);
    image.writeUInt32LE(0, 0x248);
    image.writeUInt32LE(0, 0x24c);
    const out = await runHandler(bzimageHandler, new BufferReader(image));
    expect(out.chunk.meta).not.toHaveProperty('payload');
    expect(out.entries.map((e) => e.path)).toEqual(['protected-mode.bin']);
    await out.cleanup();
  });

  it('takes the rest of the file for a syssize of 0 in an image that starts its file (MEMDISK), and nowhere else', async () => {
    const image = buildBzImage(vmlinux, 0x0203);
    image.writeUInt32LE(0, 0x1f4);
    const out = await runHandler(bzimageHandler, new BufferReader(image));
    expect(out.chunk).toMatchObject({ start: 0, end: image.length });
    expect(await out.read('protected-mode.bin')).toEqual(image.subarray(5 * 512));
    await out.cleanup();
    const inside = Buffer.concat([Buffer.alloc(512), image]);
    await expect(bzimageHandler.chunk(new BufferReader(inside), 512)).rejects.toThrow(/empty protected-mode part/);
    await expect(bzimageHandler.chunk(new BufferReader(image.subarray(0, 5 * 512)), 0)).rejects.toThrow(/empty protected-mode part/);
  });

  it('rejects truncated and inconsistent headers with a reason', async () => {
    const image = buildBzImage(sizeAppended(execFileSync('xz', ['-c'], { input: vmlinux })));
    await expect(bzimageHandler.chunk(new BufferReader(image.subarray(0, image.length - 16)), 0)).rejects.toThrow(/truncated/);
    // within the last paragraph, the payload the header locates must still be in the file
    const payloadEnd = 5 * 512 + image.readUInt32LE(0x248) + image.readUInt32LE(0x24c);
    await expect(bzimageHandler.chunk(new BufferReader(image.subarray(0, payloadEnd - 1)), 0)).rejects.toThrow(/truncated|payload outside/);
    // a cut within the last paragraph's padding leaves the whole kernel: a chunk to the cut is right
    await expectTruncationsRefused(bzimageHandler, image, (chunk, cut) => chunk.end === cut.length && cut.length >= payloadEnd && image.length - cut.length < 16);
    const badPayload = Buffer.from(image);
    badPayload.writeUInt32LE(0xffffff, 0x24c);
    await expect(bzimageHandler.chunk(new BufferReader(badPayload), 0)).rejects.toThrow(/payload outside/);
    const noFlag = Buffer.from(image);
    noFlag.writeUInt16LE(0, 0x1fe);
    expect(await bzimageHandler.chunk(new BufferReader(noFlag), 0)).toBeNull();
  });

  it.runIf(haveShared('corpus', 'bzImage_xz'))('yields the xz payload of the corpus kernel', async () => {
    const reader = await FileReader.open(corpus('bzImage_xz'));
    const out = await runHandler(bzimageHandler, reader);
    expect(out.chunk).toMatchObject({ start: 0, end: 444240 });
    expect(out.chunk.meta).toMatchObject({ payload: { offset: 0x4269, length: 409300 - 4, codec: 'xz', uncompressedSize: 1015400 } });
    const kernel = await xz(await out.read('vmlinux.xz'));
    expect(kernel.length).toBe(1015400);
    expect(kernel.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    expect(out.chunk.meta).toMatchObject({ kernelVersion: '5.4.72 (root@caesurus-ubuntu20-04) #1 Wed Oct 21 12:51:23 EDT 2020' });
    await out.cleanup();
    await reader.close();
  });
});
