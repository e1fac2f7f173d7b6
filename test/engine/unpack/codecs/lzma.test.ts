import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeLzma, decodeLzmaSync, lzma, probeLzma, type DecodeOptions, type LzmaCoder } from '../../../../src/engine/unpack/codecs/lzma.js';
import { parseLzmaPropsByte } from '../../../../src/engine/unpack/codecs/blocks.js';
import { FormatError } from '../../../../src/engine/format-error.js';

const text = Buffer.concat([Buffer.from('firmscope '.repeat(5000)), randomBytes(20000)]);

function encode(coder: 'aloneEncoder' | 'easyEncoder', data: Buffer): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const parts: Buffer[] = [];
    const enc = lzma().createStream(coder, { preset: 1 });
    enc.on('data', (c: Buffer) => parts.push(c)).on('end', () => resolve(Buffer.concat(parts))).on('error', reject);
    enc.end(data);
  });
}

type Decode = (codec: string, coder: LzmaCoder, input: Buffer, maxOutput: number, options?: DecodeOptions) => Promise<Buffer>;
const modes: Array<[string, Decode]> = [
  ['on the calling thread', async (...args) => decodeLzmaSync(...args)],
  ['on the thread pool', decodeLzma],
];

describe.each(modes)('liblzma decoding %s', (_mode, decode) => {
  it('decodes xz (concatenated streams too), lzma-alone and raw LZMA1 in one call', async () => {
    const xz = await encode('easyEncoder', text);
    expect(await decode('xz', { kind: 'xz' }, xz, 1e7)).toEqual(text);
    expect(await decode('xz', { kind: 'xz' }, Buffer.concat([xz, xz]), 1e7)).toEqual(Buffer.concat([text, text]));
    const alone = await encode('aloneEncoder', text);
    expect(await decode('lzma', { kind: 'alone' }, alone, 1e7)).toEqual(text);
    const props = parseLzmaPropsByte(alone[0]!, alone.readUInt32LE(1))!;
    expect(await decode('lzma-raw', { kind: 'raw', props }, alone.subarray(13), 1e7)).toEqual(text);
  });

  it('caps the output, also for a bomb, and says so', async () => {
    const bomb = await encode('easyEncoder', Buffer.alloc(16 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(20000);
    await expect(decode('xz', { kind: 'xz' }, bomb, 1024 * 1024)).rejects.toThrow(/xz: output exceeds 1048576 bytes/);
  });

  it('stops at a declared size and ignores what follows', async () => {
    const alone = await encode('aloneEncoder', text);
    const props = parseLzmaPropsByte(alone[0]!, alone.readUInt32LE(1))!;
    const out = await decode('lzma-raw', { kind: 'raw', props }, alone.subarray(13), 1e7, { stopAt: 1000 });
    expect(out).toEqual(text.subarray(0, 1000));
    // A declared size the stream does not reach is an error unless truncation is allowed.
    const short = alone.subarray(0, alone.length >> 1);
    await expect(decode('lzma-raw', { kind: 'raw', props }, short.subarray(13), 1e7, { stopAt: text.length })).rejects.toThrow(FormatError);
  });

  it('keeps a truncated raw stream when allowed, and refuses garbage and truncation otherwise', async () => {
    const alone = await encode('aloneEncoder', text);
    const props = parseLzmaPropsByte(alone[0]!, alone.readUInt32LE(1))!;
    const cut = alone.subarray(13, 13 + 2000);
    const partial = await decode('lzma-raw', { kind: 'raw', props }, cut, 1e7, { allowTruncated: true });
    expect(partial.length).toBeGreaterThan(0);
    expect(text.subarray(0, partial.length)).toEqual(partial);
    await expect(decode('lzma', { kind: 'alone' }, alone.subarray(0, 2000), 1e7)).rejects.toThrow(FormatError);
    await expect(decode('xz', { kind: 'xz' }, Buffer.from('not xz at all, not at all'), 1e7)).rejects.toThrow(/^xz: /);
  });

  it('reports invalid properties as a format error', async () => {
    await expect(decode('lzma-raw', { kind: 'raw', props: { lc: 9, lp: 9, pb: 9, dictSize: 4096 } }, Buffer.alloc(16), 100)).rejects.toThrow(FormatError);
  });
});

describe('raw LZMA1 probe', () => {
  it('passes a real stream, also a tiny one followed by padding, and fails random bytes at once', async () => {
    const alone = await encode('aloneEncoder', text);
    const props = parseLzmaPropsByte(alone[0]!, alone.readUInt32LE(1))!;
    expect(probeLzma({ kind: 'raw', props }, alone.subarray(13, 13 + 4096), 64)).toMatchObject({ broke: false });
    const tiny = await encode('aloneEncoder', Buffer.from('a short payload, a short payload, a short payload, a short payload'));
    const padded = Buffer.concat([tiny.subarray(13), Buffer.alloc(500, 0xff), randomBytes(500)]);
    expect(probeLzma({ kind: 'raw', props }, padded, 64).produced).toBeGreaterThanOrEqual(64);
    let passed = 0;
    for (let i = 0; i < 200; i++) if (!probeLzma({ kind: 'raw', props }, Buffer.concat([Buffer.alloc(1), randomBytes(4095)]), 64).broke) passed++;
    expect(passed).toBeLessThan(5);
  });
});
