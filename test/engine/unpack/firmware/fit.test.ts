import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { fitHandler } from '../../../../src/engine/unpack/firmware/device-tree/fit.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';

const work = mkdtempSync(join(tmpdir(), 'fit-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const kernel = Buffer.from('ARM kernel image '.repeat(200));
const dts = '/dts-v1/;\n/ { model = "Firmscope FIT Board"; compatible = "firmscope,fit"; };\n';

/** A FIT built by U-Boot's mkimage (auto mode: kernel + device tree, crc32 hashes), inline or external data. */
function buildFit(external: boolean): { fit: Buffer; dtb: Buffer; packed: Buffer } {
  writeFileSync(join(work, 'b.dts'), dts);
  execFileSync('dtc', ['-I', 'dts', '-O', 'dtb', '-o', join(work, 'b.dtb'), join(work, 'b.dts')], { stdio: 'pipe' });
  const packed = zlib.gzipSync(kernel);
  writeFileSync(join(work, 'k.gz'), packed);
  const out = join(work, external ? 'x.itb' : 'i.itb');
  execFileSync('mkimage', [...(external ? ['-E'] : []), '-f', 'auto', '-A', 'arm', '-O', 'linux', '-T', 'kernel', '-C', 'gzip', '-n', 'Test kernel',
    '-a', '0x80008000', '-e', '0x80008000', '-d', join(work, 'k.gz'), '-b', join(work, 'b.dtb'), out], { stdio: 'pipe' });
  return { fit: readFileSync(out), dtb: readFileSync(join(work, 'b.dtb')), packed };
}

describe('fit', () => {
  for (const external of [false, true]) {
    it(`extracts the images of a FIT with ${external ? 'external' : 'inline'} data and checks their hashes`, async () => {
      const { fit, dtb, packed } = buildFit(external);
      const out = await runHandler(fitHandler, new BufferReader(Buffer.concat([fit, Buffer.alloc(40, 0xff)])));
      expect(out.chunk).toMatchObject({ start: 0, meta: { images: ['kernel-1', 'fdt-1'], defaultConfig: 'conf-1' } });
      expect(out.chunk.end).toBe(fit.length);
      expect(out.entries.map((e) => e.path)).toEqual(['fit.its', 'kernel-1.gz', 'fdt-1']);
      expect(await out.read('kernel-1.gz')).toEqual(packed);
      expect(await out.read('fdt-1')).toEqual(dtb);
      expect(out.entry('kernel-1.gz').meta.meta).toMatchObject({ description: 'Test kernel', type: 'kernel', arch: 'arm', os: 'linux', compression: 'gzip', load: 0x80008000 });
      expect((await out.read('fit.its')).toString()).toMatch(/algo = "crc32";/);
      expect(out.problems).toEqual([]);
      await out.cleanup();
    });
  }

  it('reports a hash mismatch, rejects truncation, and leaves plain device trees to device-tree', async () => {
    const { fit, packed } = buildFit(true);
    const tampered = Buffer.from(fit);
    const at = tampered.indexOf(packed);
    tampered[at + 20] ^= 1;
    const out = await runHandler(fitHandler, new BufferReader(tampered));
    expect(out.problems.map((p) => p.message)).toEqual(["FIT image 'kernel-1': crc32 hash mismatch"]);
    await out.cleanup();
    await expect(fitHandler.chunk(new BufferReader(fit.subarray(0, fit.length - 10)), 0)).rejects.toThrow(/truncated/);
    // Only a cut into mkimage's zero padding after the last image leaves a complete FIT.
    await expectTruncationsRefused(fitHandler, fit, (chunk, cut) => chunk.end <= cut.length);
    execFileSync('dtc', ['-I', 'dts', '-O', 'dtb', '-o', join(work, 'p.dtb'), join(work, 'b.dts')], { stdio: 'pipe' });
    expect(await fitHandler.chunk(new BufferReader(readFileSync(join(work, 'p.dtb'))), 0)).toBeNull();
  });
});
