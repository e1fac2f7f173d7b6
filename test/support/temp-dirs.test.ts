import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { expect, it } from 'vitest';
import { removeTempDirs, tempDir } from './temp-dirs.js';

it('makes fresh folders in the temporary folder and removes them all', () => {
  const a = tempDir('firmscope-temp-dirs');
  const b = tempDir('firmscope-temp-dirs');
  expect(a).not.toBe(b);
  expect(dirname(a)).toBe(tmpdir());
  expect([existsSync(a), existsSync(b)]).toEqual([true, true]);
  removeTempDirs();
  expect([existsSync(a), existsSync(b)]).toEqual([false, false]);
});
