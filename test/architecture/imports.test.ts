// The layer table of docs/ARCHITECTURE.md, enforced: every import in src/ (type-only imports included) points to
// its own layer or to one the table allows. There is no exception list: a module that needs something from a
// layer above it is in the wrong place.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Each layer (a top-level folder or file of src/, without extension) and the layers it may import. */
export const LAYERS: Record<string, readonly string[]> = {
  errors: [],
  ids: [],
  types: [],
  engine: [],
  client: [],
  format: [],
  config: ['engine'],
  store: ['engine', 'errors', 'ids'],
  reports: ['engine', 'errors', 'format'],
  auth: ['store', 'errors', 'ids', 'config'],
  services: ['store', 'engine', 'reports', 'auth', 'errors', 'ids'],
  api: ['services', 'auth', 'errors', 'ids'],
  jobs: ['services', 'store', 'engine', 'errors', 'ids'],
  app: ['api', 'auth', 'services', 'store', 'engine', 'errors', 'config'],
  server: ['app', 'api', 'auth', 'jobs', 'services', 'store', 'engine', 'reports', 'errors', 'config'],
  cli: ['server', 'app', 'jobs', 'api', 'auth', 'services', 'store', 'reports', 'engine', 'errors', 'ids', 'config', 'client'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts)$/.test(entry.name) ? [path] : [];
  });
}

/** The layer of a file under src/: its first path segment without extension. */
function layerOf(file: string): string {
  return relative(SRC, file).split(sep)[0]!.replace(/\.(ts|tsx|mts|js)$/, '');
}

/** Relative module specifiers of static imports, re-exports and dynamic imports. */
function relativeImports(source: string): string[] {
  const found: string[] = [];
  const patterns = [/\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/g, /\bimport\s+['"](\.{1,2}\/[^'"]+)['"]/g, /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1]!);
  return found;
}

export function layerViolations(): string[] {
  const violations: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = layerOf(file);
    const allowed = LAYERS[from];
    for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), specifier);
      const where = relative(SRC, file);
      if (!target.startsWith(SRC)) {
        violations.push(`${where} imports ${specifier}, outside src/`);
        continue;
      }
      const to = layerOf(target);
      if (to === from) continue;
      if (!allowed) violations.push(`${where}: layer '${from}' is not in the table (docs/ARCHITECTURE.md)`);
      else if (!allowed.includes(to)) violations.push(`${where} imports ${specifier}: '${from}' may not import '${to}'`);
    }
  }
  return violations;
}

describe('layers import one way (docs/ARCHITECTURE.md)', () => {
  it('every import in src/ follows the layer table', () => {
    expect(layerViolations()).toEqual([]);
  });

  it('the table in docs/ARCHITECTURE.md is this table', () => {
    const doc = readFileSync(new URL('../../docs/ARCHITECTURE.md', import.meta.url), 'utf8');
    for (const [layer, allowed] of Object.entries(LAYERS)) {
      const row = doc.split('\n').find((line) => line.replace(/[/.]ts\b|\//g, '').trim().split(/\s+/)[0] === layer);
      expect(row, `a row for '${layer}' in the layer table`).toBeDefined();
      const listed = row!.replace(/\([^)]*\)/g, '').trim().split(/\s+/).slice(1).join(' ').split(',').map((s) => s.trim().replace(/\/$/, '')).filter(Boolean);
      expect(listed.sort(), `the row for '${layer}'`).toEqual([...allowed].sort());
    }
  });
});
