import { describe, expect, it } from 'vitest';
import zlib from 'node:zlib';
import { FormatError } from '../../../../src/engine/format-error.js';
import { inflate, lz4Block, lzma, lzmaAlone, lzmaRaw, parseLzmaPropsByte, xz } from '../../../../src/engine/unpack/codecs/blocks.js';

const text = Buffer.from('firmscope '.repeat(5000));

describe('codecs', () => {
  it('inflates zlib and caps the output', async () => {
    expect(await inflate(zlib.deflateSync(text))).toEqual(text);
    await expect(inflate(zlib.deflateSync(text), 100)).rejects.toBeInstanceOf(FormatError);
  });

  it('decodes xz and lzma-alone, and refuses garbage', async () => {
    expect(await xz(await lzma().compress(text, { preset: 1 }))).toEqual(text);
    const alone = await new Promise<Buffer>((resolve, reject) => {
      const parts: Buffer[] = [];
      const enc = lzma().createStream('aloneEncoder', { preset: 1 });
      enc.on('data', (c: Buffer) => parts.push(c)).on('end', () => resolve(Buffer.concat(parts))).on('error', reject);
      enc.end(text);
    });
    expect(await lzmaAlone(alone)).toEqual(text);
    // The same stream without its 13-byte header decodes as raw LZMA1 with the header's properties.
    const props = parseLzmaPropsByte(alone[0]!, alone.readUInt32LE(1))!;
    expect(await lzmaRaw(props, alone.subarray(13))).toEqual(text);
    await expect(xz(Buffer.from('not xz at all'))).rejects.toBeInstanceOf(FormatError);
  });

  it('decodes an lz4 block and rejects a bad match distance', () => {
    // literal run "abcd" then a match of 8 at distance 4, then final literals "xy"
    const block = Buffer.from([0x44, 0x61, 0x62, 0x63, 0x64, 0x04, 0x00, 0x20, 0x78, 0x79]);
    expect(lz4Block(block, 64).toString()).toBe('abcdabcdabcdxy');
    expect(() => lz4Block(Buffer.from([0x10, 0x61, 0x09, 0x00]), 64)).toThrow(FormatError);
  });
});

describe('lzma-alone with a declared size', () => {
  it('decodes exactly the declared size and ignores trailing bytes', async () => {
    const raw = await new Promise<Buffer>((resolve, reject) => {
      const parts: Buffer[] = [];
      const enc = lzma().createStream('aloneEncoder', { preset: 1 });
      enc.on('data', (c: Buffer) => parts.push(c)).on('end', () => resolve(Buffer.concat(parts))).on('error', reject);
      enc.end(text);
    });
    // Encoders write an unknown size (all ones); declare the real one, as vendor tools do, and add trailing junk.
    const sized = Buffer.from(raw);
    sized.writeBigUInt64LE(BigInt(text.length), 5);
    const withTrailer = Buffer.concat([sized, Buffer.from('trailing vendor bytes')]);
    expect(await lzmaAlone(withTrailer)).toEqual(text);
    // A declared size larger than the stream is an error, not a silent short result.
    sized.writeBigUInt64LE(BigInt(text.length * 2), 5);
    await expect(lzmaAlone(sized)).rejects.toBeInstanceOf(FormatError);
    // A declared size above the cap is refused before decoding.
    await expect(lzmaAlone(withTrailer, 100)).rejects.toThrow(/exceeds/);
  });
});
