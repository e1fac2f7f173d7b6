// The shared test plan for single-payload compression handlers: round trip, exact end when carved between
// garbage, truncation, corruption and a bomb against the byte budget.
import { expect, it } from 'vitest';
import { FormatError } from '../../../../src/engine/format-error.js';
import { LimitError, type Handler } from '../../../../src/engine/unpack/handler.js';
import { compressibleBytes, pseudoRandom } from '../../../support/bytes.js';
import { extractFiles } from '../extract-harness.js';

/**
 * `truncation: 'partial'` is for formats where a cut stream cannot be told from a vendor stream without an end
 * marker (LZMA-alone with unknown size): it must then decode a correct prefix and warn.
 */
export function compressionCases(
  handler: Handler,
  compress: (data: Buffer) => Buffer | Promise<Buffer>,
  { truncation = 'error' }: { truncation?: 'error' | 'partial' } = {},
): void {
  const data = compressibleBytes(300_000);

  it('decodes a generated stream and reports its exact extent', async () => {
    const packed = await compress(data);
    const run = await extractFiles(handler, packed);
    expect(run.chunk).toMatchObject({ start: 0, end: packed.length });
    const [only] = Object.values(run.files);
    expect(only?.equals(data)).toBe(true);
  });

  it('finds the exact end of a stream carved between other bytes', async () => {
    const packed = await compress(data);
    const image = Buffer.concat([pseudoRandom(333, 7), packed, pseudoRandom(500, 3)]);
    const run = await extractFiles(handler, image, 333);
    expect(run.chunk).toMatchObject({ start: 333, end: 333 + packed.length });
    expect(Object.values(run.files)[0]?.equals(data)).toBe(true);
  });

  it('rejects a truncated stream with a reason', async () => {
    const packed = await compress(data);
    const cut = packed.subarray(0, Math.floor(packed.length / 2));
    if (truncation === 'partial') {
      const run = await extractFiles(handler, cut);
      const out = Object.values(run.files)[0]!;
      expect(out.equals(data.subarray(0, out.length))).toBe(true);
      expect(run.problems.length).toBeGreaterThan(0);
      return;
    }
    const error = await extractFiles(handler, cut).then(
      (run) => run.chunk,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FormatError);
  });

  it('rejects corrupted data quietly or with a FormatError, never a crash', async () => {
    const packed = Buffer.from(await compress(data));
    for (let i = 40; i < packed.length - 8; i += Math.max(1, Math.floor(packed.length / 7))) packed[i] ^= 0x5a;
    const outcome: Awaited<ReturnType<typeof extractFiles>> | unknown = await extractFiles(handler, packed).then(
      (run) => run,
      (e: unknown) => e,
    );
    if (outcome instanceof Error) expect(outcome).toBeInstanceOf(FormatError);
    else {
      const files = (outcome as Awaited<ReturnType<typeof extractFiles>>).files;
      expect(Object.values(files)[0]?.equals(data) ?? false).toBe(false);
    }
  });

  it('stops a bomb at the byte budget', async () => {
    const bomb = await compress(Buffer.alloc(8 * 1024 * 1024));
    await expect(extractFiles(handler, bomb, 0, { maxTotalBytes: 1024 * 1024 })).rejects.toBeInstanceOf(LimitError);
    // with a mebibyte and more of other bytes after it (LZMA and xz streams are then decoded on their own thread)
    const followed = Buffer.concat([bomb, pseudoRandom(1100 * 1024, 11)]);
    await expect(extractFiles(handler, followed, 0, { maxTotalBytes: 1024 * 1024 })).rejects.toBeInstanceOf(LimitError);
  });

  it('ignores random bytes', async () => {
    const run = await extractFiles(handler, Buffer.concat([handler.magics[0]!.bytes, pseudoRandom(4096, 7)])).then(
      (r) => r.chunk,
      (e: unknown) => e,
    );
    expect(run === null || run instanceof FormatError).toBe(true);
  });
}
