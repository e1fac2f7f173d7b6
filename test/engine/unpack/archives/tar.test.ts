import { describe, expect, it } from 'vitest';
import tarStream from 'tar-stream';
import { tarHandler } from '../../../../src/engine/unpack/archives/tar.js';
import { pseudoRandom } from '../../../support/bytes.js';
import { extractFiles } from '../extract-harness.js';
import { tool } from '../handler-harness.js';
import { makeTree, TREE } from './archive-fixture.js';

async function packRaw(entries: Array<{ name: string; body?: string; type?: 'file' | 'symlink'; linkname?: string }>): Promise<Buffer> {
  const pack = tarStream.pack();
  const parts: Buffer[] = [];
  pack.on('data', (c: unknown) => {
    parts.push(c as Buffer);
  });
  const done = new Promise<void>((r) => pack.on('end', () => r()));
  for (const e of entries) pack.entry({ name: e.name, type: e.type ?? 'file', linkname: e.linkname }, e.body ?? '');
  pack.finalize();
  await done;
  return Buffer.concat(parts);
}

describe('tar handler', () => {
  it('extracts GNU tar output with modes and symlinks, and spans the end blocks', async () => {
    const archive = tool('tar', ['-cf', '-', 'root'], { cwd: makeTree() });
    const run = await extractFiles(tarHandler, Buffer.concat([archive, pseudoRandom(700, 7)]));
    expect(run.chunk).toMatchObject({ start: 0, end: archive.length });
    expect(run.files['root/etc/passwd']).toEqual(TREE['etc/passwd']);
    expect(run.files['root/usr/bin/tool']).toEqual(TREE['usr/bin/tool']);
    expect(run.entries.find((e) => e.path === 'root/usr/bin/tool')?.meta.mode).toBe(0o755);
    expect(run.entries.find((e) => e.path === 'root/etc/tool-link')).toMatchObject({ kind: 'symlink', linkTarget: '../usr/bin/tool' });
    expect(run.entries.find((e) => e.path === 'root/var/empty')).toMatchObject({ kind: 'directory' });
  });

  it('reads long names (GNU and pax) and is carved at an offset', async () => {
    const long = `${'d'.repeat(120)}/${'f'.repeat(130)}.txt`;
    const gnu = tool('sh', ['-c', `mkdir -p ${long.split('/')[0]} && printf hi > ${long} && tar --format=gnu -cf - ${long}`], { cwd: makeTree() });
    const pax = tool('sh', ['-c', `mkdir -p ${long.split('/')[0]} && printf hi > ${long} && tar --format=pax -cf - ${long}`], { cwd: makeTree() });
    for (const archive of [gnu, pax]) {
      const run = await extractFiles(tarHandler, Buffer.concat([Buffer.alloc(512, 1), archive]), 512);
      expect(run.chunk?.end).toBe(512 + archive.length);
      expect(run.files[long]?.toString()).toBe('hi');
    }
  });

  it('refuses entries that escape, stores absolute ones relative with one warning, and keeps the rest', async () => {
    const archive = await packRaw([
      { name: '../../evil', body: 'x' },
      { name: '/abs/ok', body: 'abs' },
      { name: '/abs/too', body: 'abs' },
      { name: 'link', type: 'symlink', linkname: '/etc/shadow' },
    ]);
    const run = await extractFiles(tarHandler, archive);
    expect(Object.keys(run.files)).toEqual(['abs/ok', 'abs/too']);
    expect(run.entries.find((e) => e.path === 'link')?.linkTarget).toBe('/etc/shadow');
    expect(run.problems).toEqual([
      expect.objectContaining({ kind: 'error', message: expect.stringMatching(/escapes the output folder/) }),
      expect.objectContaining({ kind: 'warning', message: '2 absolute path(s) stored relative to the output folder, the first "/abs/ok"' }),
    ]);
  });

  it('reports a truncated archive and ignores a broken checksum', async () => {
    const archive = tool('tar', ['-cf', '-', 'root'], { cwd: makeTree() });
    await expect(extractFiles(tarHandler, archive.subarray(0, 5000))).rejects.toThrow(/runs past the end/);
    const corrupt = Buffer.from(archive);
    corrupt[10] ^= 0xff;
    expect((await extractFiles(tarHandler, corrupt)).chunk).toBeNull();
  });
});
