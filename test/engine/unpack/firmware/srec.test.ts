import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { srecHandler } from '../../../../src/engine/unpack/firmware/text-records/srec.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';

const work = mkdtempSync(join(tmpdir(), 'srec-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const a = Buffer.from(Array.from({ length: 900 }, (_, i) => (i * 17) % 256));
const b = Buffer.from('boot parameters');

/** S3 records with an S0 header and an S7 start address, written by srecord's srec_cat. */
function buildSrec(addressLength = 4): Buffer {
  writeFileSync(join(work, 'a.bin'), a);
  writeFileSync(join(work, 'b.bin'), b);
  execFileSync('srec_cat', [join(work, 'a.bin'), '-binary', '-offset', '0x00020000', join(work, 'b.bin'), '-binary', '-offset', '0x00040000',
    '-o', join(work, 'o.srec'), '-motorola', `-address-length=${addressLength}`, '-header=firmscope', '-execution-start-address=0x00020004'], { stdio: 'pipe' });
  return readFileSync(join(work, 'o.srec'));
}

describe('srec', () => {
  for (const length of [3, 4]) {
    it(`writes the regions of an S${length - 1} file, with its header and start address`, async () => {
      const srec = buildSrec(length);
      const out = await runHandler(srecHandler, new BufferReader(Buffer.concat([srec, Buffer.from('\n\nnot records\n')])));
      expect(out.chunk).toMatchObject({ start: 0, end: srec.length, meta: { header: 'firmscope', startAddress: 0x20004 } });
      expect(out.entries.map((e) => e.path)).toEqual(['00020000.bin', '00040000.bin']);
      expect(await out.read('00020000.bin')).toEqual(a);
      expect(await out.read('00040000.bin')).toEqual(b);
      await out.cleanup();
    });
  }

  it('rejects bad checksums with a reason and other text quietly; a missing S7 ends at the last record', async () => {
    const srec = buildSrec();
    const bad = Buffer.from(srec);
    const second = bad.indexOf('S3');
    bad[second + 14] = bad[second + 14] === 0x30 ? 0x31 : 0x30;
    await expect(srecHandler.chunk(new BufferReader(bad), 0)).rejects.toThrow(/line 2: checksum mismatch/);
    await expectTruncationsRefused(srecHandler, srec, (chunk, cut) => chunk.end <= cut.length);
    const noEnd = srec.subarray(0, srec.lastIndexOf('S7'));
    expect(await srecHandler.chunk(new BufferReader(noEnd), 0)).toMatchObject({ end: noEnd.length });
    expect(await srecHandler.chunk(new BufferReader(Buffer.from('S0 is a model of car\n')), 0)).toBeNull();
  });
});
