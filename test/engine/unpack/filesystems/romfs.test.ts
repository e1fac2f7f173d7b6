import { chmodSync, linkSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { romfsHandler } from '../../../../src/engine/unpack/filesystems/romfs.js';
import { FormatError } from '../../../../src/engine/format-error.js';
import {
  cleanup,
  corrupt,
  entry,
  expectCorruptionsRefused,
  expectTree,
  extractWith,
  imageWorkspace,
  makeDeviceNodes,
  noise,
  run,
  type SampleFile,
  sampleTree,
  writeTree,
} from './fs-image-harness.js';

const { enabled, work, src } = imageWorkspace('romfs', 'genromfs');
let files: SampleFile[];
let haveNodes = false;

function genromfs(name: string): string {
  const image = join(work, name);
  run('genromfs', ['-f', image, '-d', src, '-V', 'rootvol']);
  return image;
}

beforeAll(() => {
  // romfs keeps only the executable bit: the expected modes are what the kernel shows.
  files = sampleTree({ symlinks: true, longNames: true }).map((f) =>
    f.kind === 'symlink' ? f : { ...f, mode: f.kind === 'directory' || (f.mode! & 0o100) !== 0 ? 0o755 : 0o644 },
  );
  files.push({ path: 'name-of-exactly-16', kind: 'file', content: noise(33, 2), mode: 0o644 });
  writeTree(src, files, { modes: true });
  for (const f of files) if (f.kind === 'directory') chmodSync(join(src, f.path), 0o755);
  linkSync(join(src, 'etc/passwd'), join(src, 'etc/passwd.hardlink'));
  haveNodes = makeDeviceNodes(join(src, 'etc'), 'romfs');
});

describe.runIf(enabled)('romfs handler', () => {
  it('extracts a genromfs image: contents, executable bits, symlinks, hard links, devices, exact end', async () => {
    const data = readFileSync(genromfs('root.romfs'));
    const size = data.readUInt32BE(8);
    const carved = join(work, 'carved.bin');
    writeFileSync(carved, Buffer.concat([noise(64, 1), data, Buffer.alloc(100, 0xff)]));
    const ex = await extractWith(romfsHandler, carved, 64);
    expect(ex.chunk).toMatchObject({ start: 64, end: 64 + size, meta: { volume: 'rootvol' } });
    // genromfs stores the data under whichever of two hard-linked names it meets first; the other is the link.
    expectTree(ex, files.filter((f) => f.path !== 'etc/passwd'), { modes: true });
    const pair = ex.sink.entries.filter((e) => e.path === 'etc/passwd' || e.path === 'etc/passwd.hardlink');
    expect(pair.map((e) => e.kind).sort()).toEqual(['file', 'hardlink']);
    const stored = pair.find((e) => e.kind === 'file')!;
    expect(pair.find((e) => e.kind === 'hardlink')!.linkTarget).toBe(stored.path);
    expect(readFileSync(join(ex.root, stored.path), 'utf8')).toBe(files.find((f) => f.path === 'etc/passwd')!.content!.toString());
    if (haveNodes) {
      expect(entry(ex, 'etc/null')).toMatchObject({ kind: 'device', meta: { meta: { rdev: (1 << 8) | 3 } } });
      expect(entry(ex, 'etc/fifo')?.kind).toBe('fifo');
    }
    expect(ex.sink.problems).toEqual([]);
    cleanup(ex.root);
  });

  it('rejects a bad checksum quietly, truncation with a reason, and survives corruption and loops', async () => {
    const data = readFileSync(genromfs('fuzz.romfs'));
    const badSum = Buffer.from(data);
    badSum[40] ^= 0x55;
    const quiet = await extractWith(romfsHandler, badSum);
    expect([quiet.chunk, quiet.error]).toEqual([null, undefined]);
    const cut = await extractWith(romfsHandler, data.subarray(0, data.readUInt32BE(8) - 16));
    expect(cut.error).toBeInstanceOf(FormatError);
    cleanup(quiet.root, cut.root);
    // Past the first 512 bytes the checksum no longer protects anything: corrupt only there.
    await expectCorruptionsRefused(romfsHandler, data, 60, (seed) => 1 + (seed % 4), 512);
    // A header whose "next" points back at itself.
    const loop = Buffer.from(data);
    const last = loop.lastIndexOf(Buffer.from('name-of-exactly-16'));
    const header = last - 16;
    loop.writeUInt32BE((header & ~0xf) | (loop.readUInt32BE(header) & 0xf), header);
    const ex = await extractWith(romfsHandler, loop.subarray(0, Math.max(loop.readUInt32BE(8), 512)));
    if (header >= 512) {
      expect(ex.error).toBeUndefined();
      expect(ex.sink.problems.some((p) => /loops/.test(p.message))).toBe(true);
    }
    cleanup(ex.root);
  });
});
