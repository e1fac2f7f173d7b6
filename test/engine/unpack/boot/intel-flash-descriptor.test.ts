import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { intelFlashDescriptorHandler } from '../../../../src/engine/unpack/boot/intel-flash-descriptor.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';

const work = mkdtempSync(join(tmpdir(), 'ifd-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const flreg = (base: number, limit: number) => ((base >> 12) & 0x7fff) | (((limit >> 12) & 0x7fff) << 16);

/** A 256 KiB flash: descriptor, ME at 4 KiB, BIOS in the upper half; GbE and PDR unused. */
function buildFlash(): Buffer {
  const flash = Buffer.alloc(0x40000, 0xff);
  flash.writeUInt32LE(0x0ff0a55a, 0x10);
  flash.writeUInt32LE((0x04 << 16) | (0x03 << 24) | 0x03, 0x14); // FRBA 0x40, FCBA 0x30
  flash.writeUInt32LE(0, 0x30);
  [flreg(0, 0xfff), flreg(0x20000, 0x3ffff), flreg(0x1000, 0x1ffff), 0x7fff, 0x7fff].forEach((v, i) => flash.writeUInt32LE(v, 0x40 + 4 * i));
  for (let i = 5; i < 16; i++) flash.writeUInt32LE(0x7fff, 0x40 + 4 * i);
  flash.write('ME region', 0x1000);
  flash.write('BIOS region', 0x20000);
  return flash;
}

describe('intel-flash-descriptor', () => {
  it('writes each used region, as coreboot\'s ifdtool extracts them', async () => {
    const flash = buildFlash();
    const out = await runHandler(intelFlashDescriptorHandler, new BufferReader(flash));
    expect(out.chunk).toMatchObject({ start: 0, end: flash.length });
    expect(out.entries.map((e) => e.path)).toEqual(['0-descriptor.bin', '1-bios.bin', '2-me.bin']);
    const dir = mkdtempSync(join(work, 'x-'));
    writeFileSync(join(dir, 'flash.bin'), flash);
    execFileSync('ifdtool', ['-x', 'flash.bin'], { cwd: dir, stdio: 'pipe' });
    expect(await out.read('0-descriptor.bin')).toEqual(readFileSync(join(dir, 'flashregion_0_flashdescriptor.bin')));
    expect(await out.read('1-bios.bin')).toEqual(readFileSync(join(dir, 'flashregion_1_bios.bin')));
    expect(await out.read('2-me.bin')).toEqual(readFileSync(join(dir, 'flashregion_2_intel_me.bin')));
    await out.cleanup();
  });

  it('rejects truncated images and overlapping regions with a reason, other data quietly', async () => {
    const flash = buildFlash();
    await expect(intelFlashDescriptorHandler.chunk(new BufferReader(flash.subarray(0, 0x30000)), 0)).rejects.toThrow(/truncated/);
    await expectTruncationsRefused(intelFlashDescriptorHandler, flash);
    const overlap = Buffer.from(flash);
    overlap.writeUInt32LE(flreg(0x10000, 0x3ffff), 0x44);
    await expect(intelFlashDescriptorHandler.chunk(new BufferReader(overlap), 0)).rejects.toThrow(/overlap/);
    const noDescriptor = Buffer.from(flash);
    noDescriptor.writeUInt32LE(flreg(0x1000, 0x1fff), 0x40);
    expect(await intelFlashDescriptorHandler.chunk(new BufferReader(noDescriptor), 0)).toBeNull();
  });
});
