// A compression handler's probe decodes the whole stream; its extraction writes the blocks the probe kept (once) and
// decodes again otherwise. Either way the file is the original data.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bzip2Handler } from '../../../../src/engine/unpack/compression/bzip2.js';
import { gzipHandler } from '../../../../src/engine/unpack/compression/gzip.js';
import { xzHandler } from '../../../../src/engine/unpack/compression/xz.js';
import type { Handler } from '../../../../src/engine/unpack/handler.js';
import { Budget, resolveLimits } from '../../../../src/engine/unpack/limits.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { DirectorySink } from '../../../../src/engine/unpack/sink.js';
import { compressibleBytes, pseudoRandom } from '../../../support/bytes.js';
import { tempDir } from '../extract-harness.js';
import { compressWith } from '../handler-harness.js';

const cases: Array<[Handler, string[]]> = [
  [xzHandler, ['xz', '-c']],
  [gzipHandler, ['gzip', '-c']],
  [bzip2Handler, ['bzip2', '-c']],
];

describe('decoded once: the extraction writes what the probe decoded', () => {
  for (const [handler, [cmd, ...args]] of cases) {
    it(`${handler.id}: the probed chunk, the same chunk again, and a copy never probed all extract the data`, async () => {
      const data = Buffer.concat([compressibleBytes(200_000, 5), pseudoRandom(50_000, 6)]);
      const packed = compressWith(cmd!, args, data);
      const reader = new BufferReader(Buffer.concat([packed, pseudoRandom(300, 8)]));
      const chunk = (await handler.chunk(reader, 0))!;
      expect(chunk).toMatchObject({ start: 0, end: packed.length });
      for (const info of [chunk, chunk, { ...chunk, meta: { ...chunk.meta } }]) {
        const dir = tempDir(`kept-${handler.id}`);
        const budget = new Budget(resolveLimits(reader.size, { maxTotalBytes: 1 << 24 }));
        const sink = new DirectorySink(dir, budget, { source: handler.id, path: 'image' });
        try {
          await handler.extract!(reader, info, sink);
        } finally {
          budget.dispose();
        }
        expect(sink.problems).toEqual([]);
        expect(sink.entries.map((e) => [e.kind, e.size])).toEqual([['file', data.length]]);
        expect(readFileSync(join(dir, sink.entries[0]!.path)).equals(data)).toBe(true);
      }
    });
  }
});
