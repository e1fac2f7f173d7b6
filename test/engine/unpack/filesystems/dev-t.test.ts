import { describe, expect, it } from 'vitest';
import type { EntryMeta, Sink } from '../../../../src/engine/unpack/handler.js';
import { decodeDev, sinkSpecialInode } from '../../../../src/engine/unpack/filesystems/dev-t.js';

function recordingSink(): { sink: Sink; specials: Array<[string, string, EntryMeta | undefined]> } {
  const specials: Array<[string, string, EntryMeta | undefined]> = [];
  const sink = { special: (path: string, kind: string, meta?: EntryMeta) => specials.push([path, kind, meta]) } as unknown as Sink;
  return { sink, specials };
}

describe('Linux special inodes', () => {
  it('decodes old and new dev_t layouts', () => {
    expect(decodeDev((4 << 8) | 64)).toEqual({ major: 4, minor: 64 });
    expect(decodeDev((0x123 << 8) | 0x45 | (0x678 << 20))).toEqual({ major: 0x123, minor: 0x45 | (0x678 << 8) });
  });

  it('keeps what the filesystem already put in meta.meta (extended attributes) beside the device numbers', async () => {
    const { sink, specials } = recordingSink();
    const meta: EntryMeta = { mode: 0o660, meta: { xattrs: { 'security.selinux': 'system_u:object_r:tty_device_t:s0' } } };
    expect(await sinkSpecialInode(sink, 'dev/ttyS0', 0o020660, meta, () => ({ major: 4, minor: 64 }))).toBe(true);
    expect(await sinkSpecialInode(sink, 'run/fifo', 0o010644, { mode: 0o644 }, () => ({ major: 0, minor: 0 }))).toBe(true);
    expect(await sinkSpecialInode(sink, 'etc/passwd', 0o100644, { mode: 0o644 }, () => ({ major: 0, minor: 0 }))).toBe(false);
    expect(specials).toEqual([
      ['dev/ttyS0', 'device', { mode: 0o660, meta: { xattrs: { 'security.selinux': 'system_u:object_r:tty_device_t:s0' }, major: 4, minor: 64, kind: 'char' } }],
      ['run/fifo', 'fifo', { mode: 0o644 }],
    ]);
  });
});
