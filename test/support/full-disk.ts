// Fault injection for "the disk is full": a copy of node:fs whose writeFileSync fails with `fault.code` (ENOSPC,
// EDQUOT, ...) for paths inside an extraction folder while the code is set. Used from a vi.mock('node:fs') factory:
//   const fault = vi.hoisted(() => ({ code: undefined as string | undefined }));
//   vi.mock('node:fs', async (original) => (await import('../support/full-disk.js')).fsWithFaults(await original(), fault));
import type * as Fs from 'node:fs';

export function fsWithFaults(fs: typeof Fs, fault: { code?: string }): typeof Fs {
  const writeFileSync: typeof fs.writeFileSync = (file, data, options) => {
    if (fault.code && String(file).includes('_extract')) {
      throw Object.assign(new Error(`${fault.code}: injected write failure`), { code: fault.code, syscall: 'write' });
    }
    return fs.writeFileSync(file, data, options);
  };
  return { ...fs, default: { ...fs, writeFileSync }, writeFileSync } as typeof Fs;
}

/**
 * A copy of node:fs whose write streams opened below the folder `fault.under` write their first chunk and then
 * fail with `fault.code` (at the next chunk, or at the end) while the code is set, as a disk filling up mid-write
 * does: a partial file is left for the writer to clean up. For the blob store (uploads, result documents):
 *   const fault = vi.hoisted(() => ({ code: undefined as string | undefined, under: '' }));
 *   vi.mock('node:fs', async (original) => (await import('../support/full-disk.js')).fsWithFullStreams(await original(), fault));
 */
export function fsWithFullStreams(fs: typeof Fs, fault: { code?: string; under: string }): typeof Fs {
  const failure = () => Object.assign(new Error(`${fault.code}: injected write failure`), { code: fault.code, syscall: 'write' });
  const createWriteStream = ((path: Fs.PathLike, options?: Parameters<typeof fs.createWriteStream>[1]) => {
    const stream = fs.createWriteStream(path, options);
    if (!fault.code || !fault.under || !String(path).startsWith(fault.under)) return stream;
    let chunks = 0;
    const write = stream._write.bind(stream);
    stream._write = (chunk, encoding, done) => (chunks++ === 0 ? write(chunk, encoding, done) : done(failure()));
    stream._writev = undefined;
    stream._final = (done) => done(failure());
    return stream;
  }) as typeof fs.createWriteStream;
  return { ...fs, createWriteStream };
}
