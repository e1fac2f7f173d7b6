// The registry is the list of handlers; every handler must be documented and tested. A handler id without a
// test file named test/engine/unpack/<group>/<handler-id>.test.ts fails here (unblob's "a test fails when a
// handler has no sample").
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { handlers } from '../../../src/engine/unpack/registry.js';

const here = dirname(fileURLToPath(import.meta.url));
// The test folders, by handler kind (the registry is one flat list; each handler's kind names its folder).
const groups = {
  archives: handlers.filter((h) => h.kind === 'archive'),
  boot: handlers.filter((h) => h.kind === 'boot'),
  compression: handlers.filter((h) => h.kind === 'compression'),
  filesystems: handlers.filter((h) => h.kind === 'filesystem'),
  firmware: handlers.filter((h) => h.kind === 'firmware'),
};

describe('handler registry', () => {
  it('holds every group, each handler once, with unique kebab-case ids', () => {
    expect(handlers.length).toBe(Object.values(groups).reduce((n, g) => n + g.length, 0));
    const ids = handlers.map((h) => h.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  for (const [group, list] of Object.entries(groups)) {
    for (const handler of list) {
      it(`${group}/${handler.id} is documented, has magics and a test file`, () => {
        expect(handler.doc.title.length).toBeGreaterThan(0);
        expect(handler.doc.references.length).toBeGreaterThan(0);
        expect(handler.magics.length).toBeGreaterThan(0);
        for (const magic of handler.magics) expect(magic.bytes.length).toBeGreaterThan(0);
        // Very short magics are only trusted at offset 0 or behind a validating chunk(): at least 2 bytes.
        if (!handler.onlyAtStart) for (const magic of handler.magics) expect(magic.bytes.length).toBeGreaterThanOrEqual(2);
        const testFile = join(here, group, `${handler.id}.test.ts`);
        expect(existsSync(testFile), `missing ${testFile}`).toBe(true);
      });
    }
  }
});
