// A small tree to archive with the reference tools: a text file, a nested binary, an empty dir and a symlink.
import { mkdirSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { compressibleBytes } from '../../../support/bytes.js';
import { tempDir } from '../extract-harness.js';

export const TREE = {
  'etc/passwd': Buffer.from('root:x:0:0:root:/root:/bin/sh\n'),
  'usr/bin/tool': compressibleBytes(70_000),
};

/** Creates the tree in a new folder and returns the folder (archive its entry 'root'). */
export function makeTree(): string {
  const dir = tempDir();
  const root = join(dir, 'root');
  for (const [path, data] of Object.entries(TREE)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), data);
  }
  chmodSync(join(root, 'usr/bin/tool'), 0o755);
  mkdirSync(join(root, 'var/empty'), { recursive: true });
  symlinkSync('../usr/bin/tool', join(root, 'etc/tool-link'));
  return dir;
}
