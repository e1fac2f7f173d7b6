import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fatHandler } from '../../../../src/engine/unpack/filesystems/fat/fat.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { cleanup, entry, expectCorruptionsRefused, expectTree, extractWith, imageWorkspace, noise, run, type SampleFile, sampleTree, writeTree } from './fs-image-harness.js';

const { enabled, work, src } = imageWorkspace('fat', 'mkfs.fat', 'mcopy');
let files: SampleFile[];

function mkfat(name: string, bits: 12 | 16 | 32, kib: number): string {
  const image = join(work, name);
  run('mkfs.fat', ['-F', String(bits), '-s', '1', '-S', '512', '-n', 'FWVOL', '-C', image, String(kib)]);
  const top = ['etc', 'bin', 'deep', 'empty', 'text.log', 'A long file name with spaces.txt', 'lower.txt', 'UPPER.TXT'];
  run('mcopy', ['-s', '-i', image, ...top.map((t) => join(src, t)), '::/'], {});
  return image;
}

beforeAll(() => {
  files = [
    ...sampleTree({ longNames: true }),
    { path: 'lower.txt', kind: 'file', content: Buffer.from('short lowercase name\n') },
    { path: 'UPPER.TXT', kind: 'file', content: Buffer.from('short uppercase name\n') },
  ];
  writeTree(src, files);
  process.env.MTOOLS_SKIP_CHECK = '1';
});

describe.runIf(enabled)('fat handler', () => {
  for (const [bits, kib] of [[12, 1440], [16, 8192], [32, 34000]] as const) {
    it(`extracts FAT${bits} with long names, nested directories and the exact chunk end`, async () => {
      const image = mkfat(`fat${bits}.img`, bits, kib);
      const ex = await extractWith(fatHandler, image);
      expect(ex.chunk).toMatchObject({ start: 0, end: kib * 1024, meta: { type: `fat${bits}`, label: 'FWVOL' } });
      expectTree(ex, files);
      expect(ex.sink.problems).toEqual([]);
      cleanup(ex.root);
    });
  }

  it('finds a FAT image carved out of a larger file', async () => {
    const image = readFileSync(mkfat('carve.img', 12, 1440));
    const carved = join(work, 'carved.bin');
    writeFileSync(carved, Buffer.concat([noise(4096, 3), image, noise(1000, 4)]));
    const ex = await extractWith(fatHandler, carved, 4096);
    expect(ex.chunk).toMatchObject({ start: 4096, end: 4096 + image.length });
    expectTree(ex, files);
    cleanup(ex.root);
  });

  it('reports cluster-chain loops and truncation, keeps the rest, and survives byte flips', async () => {
    const image = readFileSync(mkfat('loop.img', 16, 8192));
    // Root directory of FAT16: after reserved sectors and two FATs. Find text.log's first cluster.
    const reserved = image.readUInt16LE(14);
    const fatSectors = image.readUInt16LE(22);
    const fatOffset = reserved * 512;
    const rootOffset = fatOffset + 2 * fatSectors * 512;
    let first = 0;
    for (let at = rootOffset; at < rootOffset + 512 * 32; at += 32) {
      if (image.subarray(at, at + 11).toString('latin1') === 'TEXT    LOG') first = image.readUInt16LE(at + 26);
    }
    expect(first).toBeGreaterThan(1);
    const looped = Buffer.from(image);
    looped.writeUInt16LE(first, fatOffset + 2 * (first + 3)); // the 4th cluster points back at the 1st
    const ex = await extractWith(fatHandler, looped);
    expect(ex.error).toBeUndefined();
    expect(ex.sink.problems.some((p) => p.message.includes('text.log') && p.message.includes('loops'))).toBe(true);
    expect(entry(ex, 'etc/passwd')?.kind).toBe('file');
    cleanup(ex.root);

    const cut = await extractWith(fatHandler, image.subarray(0, 200 * 1024));
    expect(cut.error).toBeUndefined();
    expect(cut.chunk?.meta?.truncated).toBeDefined();
    expect(cut.sink.problems.length).toBeGreaterThan(0);
    cleanup(cut.root);

    expect(await fatHandler.chunk(new BufferReader(noise(2048, 1)), 0)).toBeNull();
    const small = readFileSync(mkfat('fuzz.img', 12, 720));
    await expectCorruptionsRefused(fatHandler, small, 12, 40, 512);
  });
});
