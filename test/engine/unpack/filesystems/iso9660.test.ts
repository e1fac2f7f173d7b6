import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { iso9660Handler } from '../../../../src/engine/unpack/filesystems/iso9660/iso9660.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { cleanup, entry, expectCorruptionsRefused, expectTree, extractWith, imageWorkspace, noise, run, type SampleFile, sampleTree, sha256, writeTree } from './fs-image-harness.js';

const { enabled, work, src } = imageWorkspace('iso', 'xorriso', 'genisoimage');
const deepPath = 'd1/d2/d3/d4/d5/d6/d7/d8/d9/d10';
let files: SampleFile[];

function iso(name: string, tool: 'xorriso' | 'genisoimage', flags: string[]): string {
  const out = join(work, name);
  if (tool === 'xorriso') run('xorriso', ['-as', 'mkisofs', '-quiet', ...flags, '-V', 'FWISO', '-o', out, src]);
  else run('genisoimage', ['-quiet', ...flags, '-V', 'FWISO', '-o', out, src]);
  return out;
}

beforeAll(() => {
  files = [
    ...sampleTree({ symlinks: true, longNames: true }),
    ...deepPath.split('/').map((_, i, all) => ({ path: all.slice(0, i + 1).join('/'), kind: 'directory' as const, mode: 0o755 })),
    { path: `${deepPath}/deepest.txt`, kind: 'file', content: Buffer.from('nine levels down\n'), mode: 0o644 },
  ];
  writeTree(src, files, { modes: true });
});

describe.runIf(enabled)('iso9660 handler', () => {
  it('extracts Rock Ridge names, modes and symlinks (xorriso), with the exact chunk end', async () => {
    const image = iso('rr.iso', 'xorriso', ['-R', '-J']);
    const size = readFileSync(image).length;
    const ex = await extractWith(iso9660Handler, image);
    expect(ex.chunk).toMatchObject({ start: 0, end: size, meta: { label: 'FWISO', joliet: true } });
    expectTree(ex, files, { modes: true });
    expect(ex.sink.problems).toEqual([]);
    cleanup(ex.root);
  });

  it('follows Rock Ridge relocated directories (genisoimage rr_moved) and finds a carved image', async () => {
    const image = readFileSync(iso('deep.iso', 'genisoimage', ['-R']));
    const carved = join(work, 'carved.bin');
    writeFileSync(carved, Buffer.concat([noise(8192, 1), image, noise(999, 2)]));
    const ex = await extractWith(iso9660Handler, carved, 8192);
    expect(ex.chunk).toMatchObject({ start: 8192, end: 8192 + image.length });
    expectTree(ex, files, { modes: true });
    // The holding folder for relocated directories is an artefact of the format, not content.
    expect(ex.sink.entries.filter((e) => e.path.toLowerCase().startsWith('rr_moved'))).toEqual([]);
    cleanup(ex.root);
  });

  it('uses Joliet names when there is no Rock Ridge, and plain ISO names otherwise', async () => {
    const joliet = await extractWith(iso9660Handler, iso('joliet.iso', 'genisoimage', ['-J', '-joliet-long']));
    expectTree(joliet, files.filter((f) => f.kind !== 'symlink' && !f.path.startsWith('d1')));
    cleanup(joliet.root);
    const plain = await extractWith(iso9660Handler, iso('plain.iso', 'genisoimage', []));
    expect(plain.error).toBeUndefined();
    expect(entry(plain, 'ETC/PASSWD')?.sha256).toBe(sha256(files.find((f) => f.path === 'etc/passwd')!.content!));
    expect(entry(plain, 'BIN/BUSYBOX')?.sha256).toBe(sha256(files.find((f) => f.path === 'bin/busybox')!.content!));
    cleanup(plain.root);
  });

  it('extracts El Torito boot images (BIOS no-emulation and an EFI FAT image)', async () => {
    const bootSrc = join(work, 'bootsrc');
    const bios = noise(6000, 21);
    writeTree(bootSrc, [
      { path: 'boot', kind: 'directory' },
      { path: 'boot/bios.bin', kind: 'file', content: bios },
      { path: 'readme.txt', kind: 'file', content: Buffer.from('boot disc\n') },
    ]);
    const efi = join(bootSrc, 'boot/efi.img');
    run('mkfs.fat', ['-C', efi, '200']);
    const image = join(work, 'boot.iso');
    run('xorriso', ['-as', 'mkisofs', '-quiet', '-R', '-b', 'boot/bios.bin', '-no-emul-boot', '-boot-load-size', '4',
      '-eltorito-alt-boot', '-e', 'boot/efi.img', '-no-emul-boot', '-o', image, bootSrc]);
    const ex = await extractWith(iso9660Handler, image);
    expect(ex.error).toBeUndefined();
    expect(entry(ex, '[BOOT]/boot-1-x86-noemul.img')?.sha256).toBe(sha256(bios.subarray(0, 2048)));
    expect(entry(ex, '[BOOT]/boot-2-efi-noemul.img')).toMatchObject({ sha256: sha256(readFileSync(efi)), meta: { meta: { platform: 'efi' } } });
    expect(entry(ex, 'readme.txt')?.kind).toBe('file');
    cleanup(ex.root);
  });

  it('rejects garbage quietly and survives truncation, directory loops and byte flips', async () => {
    expect(await iso9660Handler.chunk(new BufferReader(noise(40_000, 5)), 0)).toBeNull();
    const image = readFileSync(iso('fuzz.iso', 'xorriso', ['-R', '-J']));
    const cut = await extractWith(iso9660Handler, image.subarray(0, image.length - 60_000));
    expect(cut.error).toBeUndefined();
    expect(cut.chunk?.meta?.truncated).toBeDefined();
    expect(cut.sink.problems.length).toBeGreaterThan(0);
    cleanup(cut.root);
    // Point the first subdirectory record of the root at the root itself.
    const looped = Buffer.from(image);
    const rootExtent = looped.readUInt32LE(16 * 2048 + 156 + 2);
    let at = rootExtent * 2048;
    at += looped[at]!; // "."
    at += looped[at]!; // ".."
    while (looped[at] && !(looped[at + 25]! & 2)) at += looped[at]!;
    looped.writeUInt32LE(rootExtent, at + 2);
    looped.writeUInt32BE(rootExtent, at + 6);
    const lx = await extractWith(iso9660Handler, looped);
    expect(lx.error).toBeUndefined();
    expect(lx.sink.problems.some((p) => p.message.includes('loop'))).toBe(true);
    cleanup(lx.root);
    await expectCorruptionsRefused(iso9660Handler, image, 12, 60, 16 * 2048 + 8);
  });
});
