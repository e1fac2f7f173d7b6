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
