import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { unpack } from '../../../../src/engine/unpack/driver.js';
import { ubiHandler } from '../../../../src/engine/unpack/filesystems/ubi.js';
import { ubifsHandler } from '../../../../src/engine/unpack/filesystems/ubifs/ubifs.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { cleanup, corrupt, entry, expectCorruptionsRefused, expectTree, extractWith, imageWorkspace, noise, run, type SampleFile, sampleTree, sha256, tempDir, writeTree } from './fs-image-harness.js';

const { enabled, work, src } = imageWorkspace('ubi', 'ubinize', 'mkfs.ubifs');
let files: SampleFile[];
let ubifsImage: Buffer;
let ubiImage: string;
const config = noise(20_000, 42);

beforeAll(() => {
  files = sampleTree({ symlinks: true });
  writeTree(src, files, { modes: true });
  run('mkfs.ubifs', ['-r', src, '-m', '512', '-e', '15360', '-c', '100', '-x', 'zlib', '-o', join(work, 'rootfs.ubifs')]);
  ubifsImage = readFileSync(join(work, 'rootfs.ubifs'));
  writeFileSync(join(work, 'config.bin'), config);
  writeFileSync(
    join(work, 'ubinize.cfg'),
    [
      '[rootfs]', 'mode=ubi', 'image=rootfs.ubifs', 'vol_id=0', 'vol_type=dynamic', 'vol_name=rootfs', 'vol_size=400KiB',
      '[config]', 'mode=ubi', 'image=config.bin', 'vol_id=3', 'vol_type=static', 'vol_name=config',
      '[empty]', 'mode=ubi', 'vol_id=4', 'vol_type=dynamic', 'vol_name=empty', 'vol_size=64KiB',
    ].join('\n') + '\n',
  );
  ubiImage = join(work, 'ubi.img');
  run('ubinize', ['-o', ubiImage, '-m', '512', '-p', '16KiB', '-s', '512', '-Q', '1234', 'ubinize.cfg'], { cwd: work });
});

describe.runIf(enabled)('ubi handler', () => {
  it('finds the eraseblock size and the exact end, and writes one file per volume', async () => {
    const size = readFileSync(ubiImage).length;
    const carved = join(work, 'carved.bin');
    writeFileSync(carved, Buffer.concat([noise(1000, 1), readFileSync(ubiImage), Buffer.alloc(5000, 0x5a)]));
    const ex = await extractWith(ubiHandler, carved, 1000);
    expect(ex.error).toBeUndefined();
    expect(ex.chunk).toMatchObject({ start: 1000, end: 1000 + size, meta: { pebSize: 16384, dataOffset: 1024, imageSeq: 1234 } });
    // The dynamic volume holds the UBIFS image LEB for LEB (15 KiB each).
    const rootfs = readFileSync(join(ex.root, 'rootfs'));
    expect(rootfs.subarray(0, ubifsImage.length).equals(ubifsImage)).toBe(true);
    expect(rootfs.length % 15360).toBe(0);
    expect(rootfs.subarray(ubifsImage.length).every((b) => b === 0xff)).toBe(true);
    // The static volume is exactly its data.
    expect(entry(ex, 'config')?.sha256).toBe(sha256(config));
    expect(entry(ex, 'config')?.meta.meta).toMatchObject({ volumeId: 3, volumeType: 'static' });
    expect(entry(ex, 'empty')).toBeUndefined();
    expect(ex.sink.problems).toEqual([]);

    // The volume then unpacks as UBIFS into the original tree.
    const fs = await extractWith(ubifsHandler, join(ex.root, 'rootfs'));
    expectTree(fs, files, { modes: true });
    cleanup(ex.root, fs.root);
  });

  it('unpacks through the driver down to the UBIFS tree inside the volume', async () => {
    const carved = join(work, 'nested.bin');
    writeFileSync(carved, Buffer.concat([noise(2048, 8), readFileSync(ubiImage)]));
    const out = tempDir('ubi-driver');
    const result = await unpack(carved, out);
    const passwd = result.files.find((f) => f.fsPath === '/etc/passwd' && f.format === 'ubifs');
    expect(passwd?.sha256).toBe(sha256(files.find((f) => f.path === 'etc/passwd')!.content!));
    expect(result.files.find((f) => f.fsPath === '/bin/sh')).toMatchObject({ kind: 'symlink', linkTarget: 'busybox' });
    expect(result.stats.formats).toMatchObject({ ubi: 1, ubifs: 1 });
    expect(result.problems.filter((p) => p.source === 'ubi' || p.source === 'ubifs')).toEqual([]);
  });

  it('rejects a lone or garbage header quietly and reports truncation and corruption', async () => {
    const image = readFileSync(ubiImage);
    expect(await ubiHandler.chunk(new BufferReader(noise(70_000, 3)), 0)).toBeNull();
    const cut = await extractWith(ubiHandler, image.subarray(0, image.length - 20_000));
    expect(cut.error).toBeUndefined();
    expect(cut.chunk?.meta?.truncated).toBeDefined();
    expect(cut.sink.problems.some((p) => p.message.includes('truncated'))).toBe(true);
    expect(entry(cut, 'rootfs')).toBeDefined();
    cleanup(cut.root);
    // A broken VID header loses one LEB, not the image.
    const flipped = Buffer.from(image);
    flipped[3 * 16384 + 512 + 12] ^= 0xff;
    const one = await extractWith(ubiHandler, flipped);
    expect(one.sink.problems.some((p) => p.message.includes('corrupt volume-id header'))).toBe(true);
    expect(entry(one, 'rootfs')).toBeDefined();
    cleanup(one.root);
    await expectCorruptionsRefused(ubiHandler, image, 12, 40, 64);
  });
});
