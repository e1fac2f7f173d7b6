// Disk-full fault injection for tests, without filling a disk: a test file mocks `node:fs` with faultyFs(), and
// while `diskFull.under` names a folder, every file write stream opened below it writes its first chunk and then
// fails with ENOSPC (at the next chunk, or at the end), as a real full disk does: a partial file is left for the
// writer to clean up.
import type * as fs from 'node:fs';

export const diskFull: { under?: string } = {};

function enospc(): NodeJS.ErrnoException {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
}

/** `node:fs` with createWriteStream failing below `diskFull.under`; everything else is the real module. */
export function faultyFs(real: typeof fs): typeof fs {
  const createWriteStream = ((path: fs.PathLike, options?: Parameters<typeof fs.createWriteStream>[1]) => {
    const stream = real.createWriteStream(path, options);
    if (!diskFull.under || !String(path).startsWith(diskFull.under)) return stream;
    let chunks = 0;
    const write = stream._write.bind(stream);
    stream._write = (chunk, encoding, done) => (chunks++ === 0 ? write(chunk, encoding, done) : done(enospc()));
    stream._writev = undefined;
    stream._final = (done) => done(enospc());
    return stream;
  }) as typeof fs.createWriteStream;
  return { ...real, createWriteStream };
}
