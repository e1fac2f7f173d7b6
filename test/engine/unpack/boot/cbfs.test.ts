import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cbfsHandler } from '../../../../src/engine/unpack/boot/cbfs/cbfs.js';
import { BufferReader, FileReader } from '../../../../src/engine/unpack/reader.js';
import { corpus, haveShared } from '../../../support/shared.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';
import { haveTool } from '../filesystems/fs-image-harness.js';

const work = mkdtempSync(join(tmpdir(), 'cbfs-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const haveCbfstool = haveTool('cbfstool');
const content = Buffer.from(Array.from({ length: 120 }, (_, i) => `line ${i}: coreboot test content ${i % 7}\n`).join(''));

/** A CBFS image built by coreboot's own cbfstool. */
function buildRom(): Buffer {
  const rom = join(work, 'test.rom');
  const input = join(work, 'content.txt');
  writeFileSync(input, content);
  const tool = (...args: string[]) => execFileSync('cbfstool', [rom, ...args], { stdio: 'pipe' });
  tool('create', '-m', 'x86', '-s', '0x10000');
  tool('add', '-f', input, '-n', 'etc/text-lzma', '-t', 'raw', '-c', 'lzma');
  tool('add', '-f', input, '-n', 'text-lz4', '-t', 'raw', '-c', 'lz4');
  tool('add', '-f', input, '-n', 'plain', '-t', 'raw');
  tool('add-flat-binary', '-f', input, '-n', 'fallback/payload', '-l', '0x100000', '-e', '0x100010', '-c', 'lzma');
  return readFileSync(rom);
}

const LOAD = 0x100000;
const BSS = 0x10000;

/**
 * A CBFS with the stage and the SELF payload cbfstool makes from one small ELF (assembled and linked here with
 * binutils: `content` as its code at LOAD, then a BSS that gives LZ4 room to decompress in place), each stored,
 * LZMA and LZ4.
 */
function buildStageRom(): Buffer {
  const source = join(work, 'stage.s');
  writeFileSync(join(work, 'stage-code.bin'), content);
  writeFileSync(source, `.text\n.globl _start\n_start:\n.incbin "stage-code.bin"\n.bss\n.space ${BSS}\n`);
  const run = (cmd: string, ...args: string[]) => execFileSync(cmd, args, { cwd: work, stdio: 'pipe' });
  run('as', '--64', '-o', 'stage.o', source);
  run('ld', '-N', '-static', '-nostdlib', '--build-id=none', `-Ttext=0x${LOAD.toString(16)}`, '-o', 'stage.elf', 'stage.o');
  run('cbfstool', 'stages.rom', 'create', '-m', 'x86', '-s', '256K');
  for (const c of ['none', 'lzma', 'lz4']) {
    run('cbfstool', 'stages.rom', 'add-stage', '-f', 'stage.elf', '-n', `fallback/stage-${c}`, '-c', c);
    run('cbfstool', 'stages.rom', 'add-payload', '-f', 'stage.elf', '-n', `payload-${c}`, '-c', c);
  }
  return readFileSync(join(work, 'stages.rom'));
}

describe('cbfs', () => {
  it.runIf(haveCbfstool)('extracts stages and SELF payloads cbfstool made from an ELF: stored, LZMA and LZ4', async () => {
    const out = await runHandler(cbfsHandler, new BufferReader(buildStageRom()));
    const codecs = ['none', 'lzma', 'lz4'];
    expect(out.chunk.meta?.files).toEqual(codecs.flatMap((c) => [`fallback/stage-${c}`, `payload-${c}`]));
    expect(out.problems).toEqual([]);
    for (const c of codecs) {
      expect(await out.read(`fallback/stage-${c}`)).toEqual(content);
      const stage = out.entry(`fallback/stage-${c}`).meta.meta as Record<string, number>;
      // cbfstool stores data that does not shrink without saying so; the compression checks it did not here.
      expect(stage).toMatchObject({ cbfsType: 'stage', compression: c, entry: LOAD, load: LOAD });
      expect(stage.memlen).toBeGreaterThanOrEqual(content.length + BSS);
      expect(out.entry(`payload-${c}`).meta.meta).toMatchObject({ cbfsType: 'payload', entry: LOAD });
      expect(await out.read(`payload-${c}/segment-0-code.bin`)).toEqual(content);
      expect(out.entry(`payload-${c}/segment-0-code.bin`).meta.meta).toMatchObject({ load: LOAD, compression: c });
    }
    await out.cleanup();
  });

  it.runIf(haveCbfstool)('extracts files by path, decompressing LZMA and LZ4, and payload segments', async () => {
    const rom = buildRom();
    const out = await runHandler(cbfsHandler, new BufferReader(rom));
    expect(out.chunk.start).toBe(0);
    expect(out.chunk.meta).toEqual({ files: ['etc/text-lzma', 'text-lz4', 'plain', 'fallback/payload'] });
    expect(out.entries.map((e) => e.path)).toEqual(['etc/text-lzma', 'text-lz4', 'plain', 'fallback/payload', 'fallback/payload/segment-0-code.bin']);
    for (const path of ['etc/text-lzma', 'text-lz4', 'plain', 'fallback/payload/segment-0-code.bin']) expect(await out.read(path)).toEqual(content);
    expect(out.entry('text-lz4').meta.meta).toMatchObject({ cbfsType: 'raw', compression: 'lz4' });
    expect(out.entry('fallback/payload').meta.meta).toMatchObject({ cbfsType: 'payload', entry: 0x100010 });
    expect(out.entry('fallback/payload/segment-0-code.bin').meta.meta).toMatchObject({ load: 0x100000, compression: 'lzma' });
    await out.cleanup();
  });

  it.runIf(haveCbfstool)('keeps a file whose data does not decode, and rejects truncation with a reason', async () => {
    const rom = buildRom();
    const corrupt = Buffer.from(rom);
    corrupt.fill(0x41, 0x50 + 13, 0x50 + 60); // inside the LZMA stream of the first file
    const out = await runHandler(cbfsHandler, new BufferReader(corrupt));
    expect(out.entries.map((e) => e.path)).toContain('etc/text-lzma.raw');
    expect(out.problems[0]?.message).toMatch(/kept raw/);
    await out.cleanup();
    await expect(cbfsHandler.chunk(new BufferReader(rom.subarray(0, 0x60)), 0)).rejects.toThrow(/truncated/);
    await expectTruncationsRefused(cbfsHandler, rom.subarray(0, 0x2000), (chunk, cut) => chunk.end <= cut.length);
    const badName = Buffer.from(rom);
    badName.fill(0x41, 0x18, 0x50); // no NUL before the attributes
    expect(await cbfsHandler.chunk(new BufferReader(badName), 0)).toBeNull();
  });

  it.runIf(haveShared('corpus', 'coreboot.rom'))('extracts the coreboot ROM with its stages decompressed', async () => {
    const reader = await FileReader.open(corpus('coreboot.rom'));
    const out = await runHandler(cbfsHandler, reader, 0x200);
    expect(out.chunk).toMatchObject({ start: 0x200, end: 0x40000 });
    // cbfstool print lists the same files (its (empty) entries are free space).
    expect(out.chunk.meta?.files).toEqual(['cbfs master header', 'fallback/romstage', 'fallback/ramstage', 'config', 'revision',
      'cmos_layout.bin', 'fallback/dsdt.aml', 'fallback/payload', 'compression_test1', 'compression_test2', 'bootblock']);
    expect(out.problems).toEqual([]);
    expect(out.entry('fallback/romstage')).toMatchObject({ size: 0x3da8, meta: { meta: { cbfsType: 'stage', compression: 'none', load: 0xfffc0300 } } });
    // The LZMA ramstage decodes to the size its LZMA header declares (memlen adds the BSS).
    expect(out.entry('fallback/ramstage')).toMatchObject({ size: 148660, meta: { meta: { compression: 'lzma', memlen: 182008 } } });
    expect(out.entry('compression_test1').size).toBe(13312);
    expect(await out.read('compression_test1')).toEqual(await out.read('compression_test2'));
    expect((await out.read('config')).toString()).toMatch(/^# This image was built using coreboot/);
    expect((await out.read('fallback/dsdt.aml')).toString('latin1', 0, 4)).toBe('DSDT');
    await out.cleanup();
    await reader.close();
  });
});
