import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seamaHandler } from '../../../../src/engine/unpack/firmware/seama.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';

/** A SEAMA image as OpenWrt's seama tool writes it (network byte order, MD5 of the image, NUL-separated meta). */
function buildSeama(image: Buffer, meta: string[], le = false): Buffer {
  const metaRaw = Buffer.from(meta.map((m) => `${m}\0`).join(''));
  const padded = Buffer.concat([metaRaw, Buffer.alloc((4 - (metaRaw.length % 4)) % 4)]);
  const header = Buffer.alloc(12);
  if (le) {
    header.writeUInt32LE(0x5ea3a417, 0);
    header.writeUInt16LE(padded.length, 6);
    header.writeUInt32LE(image.length, 8);
  } else {
    header.writeUInt32BE(0x5ea3a417, 0);
    header.writeUInt16BE(padded.length, 6);
    header.writeUInt32BE(image.length, 8);
  }
  const md5 = image.length ? createHash('md5').update(image).digest() : Buffer.alloc(0);
  return Buffer.concat([header, md5, padded, image]);
}

const kernel = Buffer.concat([Buffer.from('5d00008000ffffffffffffffff', 'hex'), Buffer.alloc(500, 0x11)]);

describe('seama', () => {
  for (const le of [false, true]) {
    it(`extracts the image of a ${le ? 'little' : 'big'}-endian SEAMA and its meta strings`, async () => {
      const seama = buildSeama(kernel, ['dev=/dev/mtdblock/2', 'type=firmware']);
      const image = le ? buildSeama(kernel, ['dev=/dev/mtdblock/2', 'type=firmware'], true) : seama;
      const out = await runHandler(seamaHandler, new BufferReader(Buffer.concat([image, Buffer.alloc(8, 0xff)])));
      expect(out.chunk).toMatchObject({ start: 0, end: image.length, meta: { endian: le ? 'le' : 'be', meta: ['dev=/dev/mtdblock/2', 'type=firmware'] } });
      expect(await out.read('image.lzma')).toEqual(kernel);
      await out.cleanup();
    });
  }

  it('takes a seal (no image) as header and meta only', async () => {
    const seal = buildSeama(Buffer.alloc(0), ['signature=wrgn49_dlob_dir615']);
    const inner = buildSeama(kernel, ['type=firmware']);
    const out = await runHandler(seamaHandler, new BufferReader(Buffer.concat([seal, inner])));
    expect(out.chunk).toMatchObject({ end: seal.length, meta: { meta: ['signature=wrgn49_dlob_dir615'] } });
    expect(out.entries).toEqual([]);
    await out.cleanup();
  });

  it('rejects an MD5 mismatch and truncation with a reason', async () => {
    const seama = buildSeama(kernel, ['type=firmware']);
    const bad = Buffer.from(seama);
    bad[bad.length - 1] ^= 1;
    await expect(seamaHandler.chunk(new BufferReader(bad), 0)).rejects.toThrow(/MD5 mismatch/);
    await expectTruncationsRefused(seamaHandler, seama);
    await expect(seamaHandler.chunk(new BufferReader(seama.subarray(0, 100)), 0)).rejects.toThrow(/truncated/);
  });
});
