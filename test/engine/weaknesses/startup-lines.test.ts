import { describe, expect, it } from 'vitest';
import type { FileIndex } from '../../../src/engine/file-index.js';
import type { WeaknessContext } from '../../../src/engine/weaknesses/rule.js';
import { startupLines } from '../../../src/engine/weaknesses/startup.js';
import { fixture } from './support.js';

function context(index: FileIndex): WeaknessContext {
  return { index, signal: new AbortController().signal, text: async (n) => (await index.read(n)).toString('utf8'), note: () => undefined, perFile: async () => [] };
}

describe('startupLines', () => {
  it('reads the startup files once per analyzer run (one text reader), again in the next run', async () => {
    const index = fixture({ 'etc/inittab': '::sysinit:/etc/init.d/rcS\n', 'etc/init.d/rcS': 'telnetd -l /bin/sh\n' });
    const run = context(index);
    const first = await startupLines(run);
    expect(first.map((l) => [l.kind, l.text])).toEqual([['inittab', '::sysinit:/etc/init.d/rcS'], ['script', 'telnetd -l /bin/sh']]);
    expect(await startupLines({ ...run, note: () => undefined })).toBe(first);
    const next = await startupLines(context(index));
    expect(next).not.toBe(first);
    expect(next).toEqual(first);
  });
});
