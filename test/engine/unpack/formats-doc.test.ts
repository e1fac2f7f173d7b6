// docs/formats.md is generated from the handlers: it must list every handler with its doc fields, and the committed
// file must be what the generator writes today (a handler added or re-documented without regenerating fails here).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FORMATS_DOC_COMMAND, formatsDoc } from '../../../src/engine/unpack/formats-doc.js';
import { handlers } from '../../../src/engine/unpack/registry.js';

const docPath = fileURLToPath(new URL('../../../docs/formats.md', import.meta.url));

describe('docs/formats.md', () => {
  it('shows every handler with its id, title, references and limitations', () => {
    const doc = formatsDoc(handlers);
    expect(doc).toContain(`recognises ${handlers.length} formats`);
    for (const handler of handlers) {
      expect(doc).toContain(`- Id: \`${handler.id}\``);
      expect(doc).toContain(`### ${handler.doc.title}\n`);
      for (const reference of handler.doc.references) expect(doc).toContain(`- ${reference}\n`);
      for (const limitation of handler.doc.limitations ?? []) expect(doc).toContain(`- ${limitation}\n`);
    }
  });

  it('shows a handler that only recognises its chunk, its magic offset and that it is never carved', () => {
    const doc = formatsDoc([
      {
        id: 'probe-only',
        kind: 'firmware',
        doc: { title: 'A test format', references: ['its specification'] },
        magics: [{ bytes: Buffer.from('AB'), offset: 0x10 }, { bytes: Buffer.from([0x00, 0xff]) }],
        onlyAtStart: true,
        chunk: () => Promise.resolve(null),
      },
    ]);
    expect(doc).toContain('- Magic: `41 42` ("AB") at +0x10, `00 ff` (only at the start of a file, never carved)');
    expect(doc).toContain('- Extraction: recognised only (the chunk is kept as is)');
    expect(doc).not.toContain('Limitations:');
    expect(doc).not.toContain('## Compression');
  });

  it('is up to date with the handlers', () => {
    const committed = readFileSync(docPath, 'utf8');
    expect(committed === formatsDoc(handlers), `docs/formats.md is stale: run \`${FORMATS_DOC_COMMAND}\` and commit it`).toBe(true);
  });
});
