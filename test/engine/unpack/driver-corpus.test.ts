// The driver on real images from ../shared/corpus. Every expectation was checked with standard tools:
//   bzip2 -dc dropbearStaticMipsel.tar.bz2 | sha256sum; tar tvjf ...; tar xjOf ... | sha256sum; ar t libz.a
//   dd if=bzImage_xz bs=1 skip=$((0x4269)) | xz -dc | sha256sum (1,015,400 bytes); python lzma unused_data for
//   the stream's end (409,296 bytes after 0x4269, followed by the kernel's size trailer and padding).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unpack } from '../../../src/engine/unpack/driver.js';
import { handlers } from '../../../src/engine/unpack/registry.js';
import { corpus, haveShared } from '../../support/shared.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fs-corpus-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.runIf(haveShared('corpus', 'dropbearStaticMipsel.tar.bz2'))('corpus: dropbearStaticMipsel.tar.bz2', () => {
  it('unpacks bzip2 → tar → files, symlinks and the ar members of libz.a', async () => {
    const out = join(dir, 'dropbear');
    const result = await unpack(corpus('dropbearStaticMipsel.tar.bz2'), out);
    expect(result.problems).toEqual([]);
    expect(result.stats.formats).toEqual({ bzip2: 1, tar: 1, ar: 1 });
    const tarNode = result.files.find((f) => f.format === 'bzip2')!;
    expect(tarNode).toMatchObject({ fsPath: '/dropbearStaticMipsel.tar', type: 'tar', size: 1075200 });
    expect(tarNode.sha256).toBe('e9fb624519473155cefae23ef2dcec2025836804d54b98705d38d66a2fa4aaec');
    const byFsPath = new Map(result.files.filter((f) => f.format === 'tar').map((f) => [f.fsPath, f]));
    expect([...byFsPath.keys()].sort()).toEqual(
      ['', '/dropbear', '/dropbear.8', '/dropbearconvert', '/dropbearkey', '/dropbearkey.8', '/libz.a', '/libz.so', '/libz.so.1', '/libz.so.1.2.3'].map(
        (p) => '/dropbearStaticMipsel' + p,
      ),
    );
    const dropbear = byFsPath.get('/dropbearStaticMipsel/dropbear')!;
    expect(dropbear).toMatchObject({ type: 'elf', size: 424001, mode: 0o755, depth: 2 });
    expect(dropbear.sha256).toBe('339d364223d983c8af867d70466dcbda2709baa48c70534de06ea2a17b1e71ec');
    expect(byFsPath.get('/dropbearStaticMipsel/libz.so')).toMatchObject({ kind: 'symlink', linkTarget: 'libz.so.1.2.3' });
    const members = result.files.filter((f) => f.format === 'ar').map((f) => f.fsPath);
    expect(members).toEqual(
      ['__symbols', 'adler32.o', 'compress.o', 'crc32.o', 'gzio.o', 'uncompr.o', 'deflate.o', 'trees.o', 'zutil.o', 'inflate.o', 'infback.o', 'inftrees.o', 'inffast.o'].map((m) => '/' + m),
    );
    expect(result.files.find((f) => f.fsPath === '/inflate.o')?.sha256).toBe('c8ea9d4e980ade80ab045575bb8485104671b74bb52a4899bfa9208d220f39c8');
    const written = JSON.parse(await readFile(join(out, 'files.json'), 'utf8'));
    expect(written).toHaveLength(result.files.length);
  });
});

describe.runIf(haveShared('corpus', 'bzImage_xz'))('corpus: bzImage_xz', () => {
  const vmlinuxSha = 'f1a444f39ed4c1c6b217aa15986229a8a2f5431db425481f7fd072683e9e188f';

  it('carves the xz stream at 0x4269 to the ELF vmlinux with compression handlers alone', async () => {
    const result = await unpack(corpus('bzImage_xz'), join(dir, 'bz-carve'), {
      handlers: handlers.filter((h) => h.kind === 'compression'),
    });
    const xzNodes = result.files.filter((f) => f.format === 'xz');
    expect(xzNodes).toHaveLength(1);
    expect(xzNodes[0]).toMatchObject({ path: 'bzImage_xz_extract/17001-426297.xz/bzImage_xz', offset: 0x4269, type: 'elf', size: 1015400 });
    expect(xzNodes[0]!.sha256).toBe(vmlinuxSha);
    expect(result.unknownChunks).toContainEqual({ path: 'bzImage_xz', offset: 0, size: 0x4269 });
  });

  it('yields the same vmlinux through the full registry', async () => {
    const result = await unpack(corpus('bzImage_xz'), join(dir, 'bz-full'));
    expect(result.files.filter((f) => f.sha256 === vmlinuxSha && f.type === 'elf')).toHaveLength(1);
  });
});
