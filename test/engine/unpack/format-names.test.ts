// Every format handler has a short human name for reports, taken from its documented title.
import { describe, expect, it } from 'vitest';
import { formatName, shortTitle } from '../../../src/engine/unpack/format-names.js';
import { handlers } from '../../../src/engine/unpack/registry.js';

describe('format names', () => {
  it('names the common firmware formats as a reader knows them', () => {
    expect(formatName('uimage')).toBe('U-Boot legacy image');
    expect(formatName('squashfs-v4')).toBe('SquashFS 4.0');
    expect(formatName('gzip')).toBe('gzip');
    expect(formatName('jffs2')).toBe('JFFS2');
    expect(formatName('not-a-handler')).toBe('not-a-handler');
    // content types of a whole image (engine/file-type.ts)
    expect(formatName('squashfs')).toBe('SquashFS');
    expect(formatName('data')).toBe('unrecognised binary data');
  });

  it('gives every handler a distinct, short name without its parenthesised details', () => {
    const names = handlers.map((h) => formatName(h.id));
    for (const [i, name] of names.entries()) {
      expect(name, handlers[i]!.id).toMatch(/^[^(),;]{2,45}$/);
      // a kebab-case id ('squashfs-v4') is never what the reader sees
      if (handlers[i]!.id.includes('-')) expect(name).not.toBe(handlers[i]!.id);
    }
    expect(new Set(names).size).toBe(names.length);
    expect(shortTitle('JFFS2 (Journalling Flash File System 2), little- and big-endian')).toBe('JFFS2');
  });
});
