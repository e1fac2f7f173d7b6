import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cramfsHandler } from '../../../../src/engine/unpack/filesystems/cramfs.js';
import { FormatError } from '../../../../src/engine/unpack/handler.js';
import {
  cleanup,
  corrupt,
  entry,
  expectTree,
  extractWith,
  haveTool,
  noise,
  run,
  sampleTree,
  tempDir,
  writeTree,
  type SampleFile,
} from './fs-image-harness.js';

const enabled = haveTool('mkfs.cramfs');
const work = tempDir('cramfs');
const src = join(work, 'src');
let files: SampleFile[];
let haveNodes = false;

function mkcramfs(name: string, args: string[] = []): string {
  const image = join(work, name);
  run('mkfs.cramfs', [...args, src, image]);
  return image;
}

beforeAll(() => {
  files = [
    ...sampleTree({ symlinks: true, longNames: true }),
    // A 40 KiB run of zeros: with -z it is stored as holes.
    { path: 'holes.bin', kind: 'file', content: Buffer.concat([noise(5000, 3), Buffer.alloc(40_960), noise(100, 4)]), mode: 0o644 },
    { path: 'dev', kind: 'directory', mode: 0o755 },
  ];
  writeTree(src, files, { modes: true });
  try {
    // Device nodes and fifos need privileges; without them those checks are skipped.
    execFileSync('mknod', [join(src, 'dev/null'), 'c', '1', '3']);
    execFileSync('mkfifo', [join(src, 'dev/fifo')]);
    haveNodes = true;
  } catch {
    console.warn('NOTICE: cannot create device nodes here; the cramfs device checks are skipped');
  }
});
afterAll(() => cleanup(work));

describe.runIf(enabled)('cramfs handler', () => {
  for (const endian of ['little', 'big']) {
    it(`extracts a ${endian}-endian image: contents, modes, symlinks, devices, and the exact end`, async () => {
      const image = mkcramfs(`${endian}.cramfs`, ['-N', endian, '-n', 'volname']);
      const data = readFileSync(image);
      const carved = join(work, `${endian}-carved.bin`);
      writeFileSync(carved, Buffer.concat([noise(300, 1), data, Buffer.alloc(1000, 0xff)]));
      const ex = await extractWith(cramfsHandler, carved, 300);
      expect(ex.chunk).toMatchObject({ start: 300, end: 300 + data.length, meta: { endian: endian === 'little' ? 'le' : 'be', name: 'volname' } });
      expectTree(ex, files, { modes: true });
      if (haveNodes) {
        expect(entry(ex, 'dev/null')).toMatchObject({ kind: 'device', meta: { meta: { rdev: (1 << 8) | 3 } } });
        expect(entry(ex, 'dev/fifo')?.kind).toBe('fifo');
      }
      expect(ex.sink.problems).toEqual([]);
      cleanup(ex.root);
    });
  }

  it('extracts explicit holes (-z) and 16 KiB blocks (-b)', async () => {
    for (const args of [['-z'], ['-b', '16384']]) {
      const ex = await extractWith(cramfsHandler, mkcramfs(`opt${args[0]}.cramfs`, args));
      expectTree(ex, files, { modes: true });
      cleanup(ex.root);
    }
  });

  it('rejects false positives quietly, truncation with a reason, and survives corruption', async () => {
    const data = readFileSync(mkcramfs('fuzz.cramfs'));
    const fake = Buffer.concat([Buffer.from([0x45, 0x3d, 0xcd, 0x28]), noise(100, 5)]);
    const quiet = await extractWith(cramfsHandler, fake);
    expect([quiet.chunk, quiet.error]).toEqual([null, undefined]);
    const cut = await extractWith(cramfsHandler, data.subarray(0, data.length - 10));
    expect(cut.error).toBeInstanceOf(FormatError);
    cleanup(quiet.root, cut.root);
    for (let seed = 1; seed <= 60; seed++) {
      const ex = await extractWith(cramfsHandler, corrupt(data, 1 + (seed % 4), seed, 16));
      if (ex.error !== undefined) expect(ex.error, `seed ${seed}`).toBeInstanceOf(FormatError);
      cleanup(ex.root);
    }
  }, 60_000);

  it('reports a directory that contains itself', async () => {
    const data = Buffer.from(readFileSync(mkcramfs('loop.cramfs')));
    // Find "bin" in the root listing (12-byte inodes + names) and point its children at the root's.
    const rootWord = data.readUInt32LE(64 + 8);
    let binAt = 76;
    while (data.subarray(binAt + 12, binAt + 16).toString('latin1') !== 'bin\0') binAt += 12 + (data.readUInt32LE(binAt + 8) & 0x3f) * 4;
    data.writeUInt32LE(((rootWord >>> 6) << 6) | (data.readUInt32LE(binAt + 8) & 0x3f), binAt + 8);
    const ex = await extractWith(cramfsHandler, data);
    expect(ex.error).toBeUndefined();
    expect(ex.sink.problems.some((p) => /loop/.test(p.message))).toBe(true);
    expect(entry(ex, 'etc/passwd')?.kind).toBe('file');
    cleanup(ex.root);
  });
});
