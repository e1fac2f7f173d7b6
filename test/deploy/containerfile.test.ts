// The container image (deploy/Containerfile) carries every folder the service reads at run time next to its code:
// each `new URL('../…', import.meta.url)` of the source names one (rules, tables, the built web UI). No container
// runtime runs here, so this reads the file: the runtime stage must copy each such folder from the build stage.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/cli-process.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The package folders the source reads relative to its own files, e.g. 'tables', 'web/dist'. */
function runtimeFolders(): Set<string> {
  const out = new Set<string>();
  for (const file of sources(join(projectRoot, 'src'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/new URL\('(\.\.\/[^']+)', import\.meta\.url\)/g)) {
      const target = posix.normalize(posix.join(relative(projectRoot, dirname(file)).split('\\').join('/'), m[1]!));
      const parts = target.split('/');
      // a file at the top (package.json) needs no folder; 'web/dist/' keeps its two parts; a folder inside src/ is
      // one of the compiled tree (dist/bundle from dist/cli)
      if (parts.length > 1) out.add(parts[0] === 'web' ? 'web/dist' : parts[0] === 'src' ? 'dist' : parts[0]!);
    }
  }
  return out;
}

describe('Containerfile', () => {
  it('copies into the runtime image every folder the code reads at run time', () => {
    const text = readFileSync(join(projectRoot, 'deploy', 'Containerfile'), 'utf8');
    const runtime = text.slice(text.lastIndexOf('\nFROM '));
    const copied = new Set([...runtime.matchAll(/^COPY --from=build \/app\/(\S+) /gm)].map((m) => m[1]!.replace(/\/$/, '')));
    const needed = runtimeFolders();
    expect([...needed].sort()).toEqual(expect.arrayContaining(['rules', 'tables', 'web/dist']));
    expect([...needed].filter((folder) => !copied.has(folder))).toEqual([]);
  });
});
