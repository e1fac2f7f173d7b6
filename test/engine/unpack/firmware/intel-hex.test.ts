import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { intelHexHandler } from '../../../../src/engine/unpack/firmware/text-records/intel-hex.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';

const work = mkdtempSync(join(tmpdir(), 'ihex-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const a = Buffer.from(Array.from({ length: 700 }, (_, i) => (i * 13) % 256));
const b = Buffer.from('second region, far away');

/** Two regions 1 MiB apart at 0x08000000, written by srecord's srec_cat (extended linear address records). */
function buildHex(): Buffer {
  writeFileSync(join(work, 'a.bin'), a);
  writeFileSync(join(work, 'b.bin'), b);
  execFileSync('srec_cat', [join(work, 'a.bin'), '-binary', '-offset', '0x08000000', join(work, 'b.bin'), '-binary', '-offset', '0x08100010',
    '-execution-start-address=0x08000101', '-o', join(work, 'o.hex'), '-intel'], { stdio: 'pipe' });
  return readFileSync(join(work, 'o.hex'));
}

describe('intel-hex', () => {
  it('writes one file per memory region, named by address', async () => {
    const hex = buildHex();
    const out = await runHandler(intelHexHandler, new BufferReader(Buffer.concat([hex, Buffer.from('trailing junk\n')])));
    expect(out.chunk).toMatchObject({ start: 0, end: hex.length, meta: { startAddress: 0x08000101 } });
    expect(out.entries.map((e) => e.path)).toEqual(['08000000.bin', '08100010.bin']);
    expect(await out.read('08000000.bin')).toEqual(a);
    expect(await out.read('08100010.bin')).toEqual(b);
    await out.cleanup();
  });

  it('fills small gaps with 0xFF and keeps segment addressing (type 02)', async () => {
    const record = (address: number, type: number, data: number[]) => {
      const bytes = [data.length, address >> 8, address & 0xff, type, ...data];
      const sum = (0x100 - (bytes.reduce((s, x) => s + x, 0) & 0xff)) & 0xff;
      return `:${Buffer.from([...bytes, sum]).toString('hex').toUpperCase()}\r\n`;
    };
    const text = record(0, 2, [0x10, 0x00]) + record(0x10, 0, [1, 2, 3]) + record(0x18, 0, [4]) + record(0, 1, []);
    const out = await runHandler(intelHexHandler, new BufferReader(Buffer.from(text)));
    expect(out.entries.map((e) => e.path)).toEqual(['00010010.bin']);
    expect(await out.read('00010010.bin')).toEqual(Buffer.from([1, 2, 3, 0xff, 0xff, 0xff, 0xff, 0xff, 4]));
    await out.cleanup();
  });

  it('rejects bad checksums and missing end records with a reason, other text quietly', async () => {
    const hex = buildHex();
    const bad = Buffer.from(hex);
    const second = bad.indexOf(':', 1);
    bad[second + 10] = bad[second + 10] === 0x30 ? 0x31 : 0x30;
    await expect(intelHexHandler.chunk(new BufferReader(bad), 0)).rejects.toThrow(/line 2: checksum mismatch/);
    // Only cutting the final line ending leaves a complete file.
    await expectTruncationsRefused(intelHexHandler, hex, (chunk, cut) => chunk.end === cut.length);
    await expect(intelHexHandler.chunk(new BufferReader(hex.subarray(0, hex.lastIndexOf(':'))), 0)).rejects.toThrow(/no end-of-file record/);
    expect(await intelHexHandler.chunk(new BufferReader(Buffer.from(':: not hex\n')), 0)).toBeNull();
  });
});
