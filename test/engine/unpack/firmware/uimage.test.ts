import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { uimageHandler } from '../../../../src/engine/unpack/firmware/uimage.js';
import { BufferReader, FileReader } from '../../../../src/engine/unpack/reader.js';
import { corpus, haveShared } from '../../../support/shared.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';

const work = mkdtempSync(join(tmpdir(), 'uimage-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const kernel = Buffer.concat([Buffer.from('\x7fELF fake kernel '), Buffer.alloc(3000, 0x41), Buffer.from('end')]);

function mkimage(args: string[], data: Buffer | Buffer[]): Buffer {
  const files = (Array.isArray(data) ? data : [data]).map((d, i) => {
    const path = join(work, `in-${i}-${Math.random()}`);
    writeFileSync(path, d);
    return path;
  });
  const out = join(work, `out-${Math.random()}.img`);
  execFileSync('mkimage', [...args, '-d', files.join(':'), out], { stdio: 'pipe' });
  return readFileSync(out);
}

const base = ['-A', 'mips', '-O', 'linux', '-T', 'kernel', '-a', '0x80010000', '-e', '0x80010000'];

describe('uimage', () => {
  it('extracts an uncompressed kernel named after the image name', async () => {
    const img = mkimage([...base, '-C', 'none', '-n', 'Test Linux/5.4'], kernel);
    const padded = Buffer.concat([img, Buffer.alloc(100, 0xff)]);
    const out = await runHandler(uimageHandler, new BufferReader(padded));
    expect(out.chunk).toMatchObject({ start: 0, end: img.length });
    expect(out.chunk.meta).toMatchObject({ name: 'Test Linux/5.4', os: 'linux', arch: 'mips', type: 'kernel', compression: 'none', loadAddress: 0x80010000 });
    expect(out.entries.map((e) => e.path)).toEqual(['Test Linux_5.4']);
    expect(await out.read('Test Linux_5.4')).toEqual(kernel);
    await out.cleanup();
  });

  it('decodes gzip and lzma payloads', async () => {
    for (const [comp, packed] of [
      ['gzip', zlib.gzipSync(kernel)],
      ['lzma', execFileSync('lzma', ['-c'], { input: kernel })],
    ] as const) {
      const img = mkimage([...base, '-C', comp, '-n', `k-${comp}`], packed);
      const out = await runHandler(uimageHandler, new BufferReader(img));
      expect(out.chunk.meta).toMatchObject({ compression: comp });
      expect(await out.read(`k-${comp}`)).toEqual(kernel);
      await out.cleanup();
    }
  });

  it('keeps an undecodable payload raw and reports it', async () => {
    const img = mkimage([...base, '-C', 'gzip', '-n', 'bad'], Buffer.from('not gzip at all, sorry'));
    const out = await runHandler(uimageHandler, new BufferReader(img));
    expect(out.entries.map((e) => e.path)).toEqual(['bad.gz']);
    expect(out.problems[0]?.message).toMatch(/gzip decoding failed/);
    await out.cleanup();
  });

  it('splits a multi-file image', async () => {
    const a = Buffer.from('first part, 23 bytes...');
    const b = Buffer.from('second');
    const img = mkimage(['-A', 'arm', '-O', 'linux', '-T', 'multi', '-C', 'none', '-n', 'multi'], [a, b]);
    const out = await runHandler(uimageHandler, new BufferReader(img));
    expect(out.chunk.meta).toMatchObject({ type: 'multi', parts: [a.length, b.length] });
    expect(await out.read('multi-0')).toEqual(a);
    expect(await out.read('multi-1')).toEqual(b);
    await out.cleanup();
  });

  it('rejects corrupt and truncated images with a reason, and lone magics quietly', async () => {
    const img = mkimage([...base, '-C', 'none', '-n', 'x'], kernel);
    const badHeader = Buffer.from(img);
    badHeader[0x20] ^= 1; // name byte: header CRC no longer matches
    await expect(uimageHandler.chunk(new BufferReader(badHeader), 0)).rejects.toThrow(/header CRC mismatch/);
    const badData = Buffer.from(img);
    badData[100] ^= 0xff;
    await expect(uimageHandler.chunk(new BufferReader(badData), 0)).rejects.toThrow(/data CRC mismatch/);
    await expectTruncationsRefused(uimageHandler, img);
    await expect(uimageHandler.chunk(new BufferReader(img.subarray(0, 1000)), 0)).rejects.toThrow(/truncated/);
    const lone = Buffer.concat([Buffer.from('27051956', 'hex'), Buffer.alloc(60, 0xee)]);
    expect(await uimageHandler.chunk(new BufferReader(lone), 0)).toBeNull();
  });

  it.runIf(haveShared('corpus', 'openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin'))('reads the OpenWrt sysupgrade kernel', async () => {
    const reader = await FileReader.open(corpus('openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin'));
    const out = await runHandler(uimageHandler, reader);
    expect(out.chunk).toMatchObject({ start: 0, end: 0x2527c6 });
    expect(out.chunk.meta).toMatchObject({ name: 'MIPS OpenWrt Linux-5.4.43', arch: 'mips', os: 'linux', compression: 'none' });
    expect(out.entry('MIPS OpenWrt Linux-5.4.43').size).toBe(0x252786);
    await out.cleanup();
    await reader.close();
  });

  it.runIf(haveShared('corpus', 'tplink-tl-mr3020-v1_3.17.2_test.tpl'))('decodes the LZMA U-Boot inside the TP-Link image', async () => {
    const reader = await FileReader.open(corpus('tplink-tl-mr3020-v1_3.17.2_test.tpl'));
    const out = await runHandler(uimageHandler, reader, 0x3c80);
    expect(out.chunk).toMatchObject({ start: 0x3c80, end: 0x3c80 + 64 + 33356 });
    expect(out.chunk.meta).toMatchObject({ name: 'u-boot image', type: 'firmware', compression: 'lzma' });
    expect(out.entry('u-boot image').size).toBe(95584);
    await out.cleanup();
    await reader.close();
  });
});
