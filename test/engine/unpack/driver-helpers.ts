// Tiny synthetic formats for driver tests: 'box' = 'BOX!' + u32le length + payload (extracted as one file named
// by the handler), and variants that misbehave on purpose.
import { FormatError } from '../../../src/engine/format-error.js';
import type { Handler } from '../../../src/engine/unpack/handler.js';

export function box(payload: Buffer | string): Buffer {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
  const header = Buffer.alloc(8);
  header.write('BOX!', 0, 'latin1');
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body]);
}

export function boxHandler(overrides: Partial<Handler> & { entryName?: string } = {}): Handler {
  const { entryName = 'payload', ...rest } = overrides;
  return {
    id: 'box',
    kind: 'archive',
    doc: { title: 'test box', references: [] },
    magics: [{ bytes: Buffer.from('BOX!') }],
    async chunk(reader, start) {
      const header = await reader.read(start, 8);
      if (header.length < 8) return null;
      const length = header.readUInt32LE(4);
      if (start + 8 + length > reader.size) throw new FormatError(`box: payload of ${length} bytes runs past the end`);
      return { start, end: start + 8 + length };
    },
    async extract(reader, chunk, sink) {
      await sink.copy(entryName, reader, chunk.start + 8, chunk.end, { mode: 0o644 });
    },
    ...rest,
  };
}
