// RFC 6266 download names: plain ASCII stays one quoted filename; anything else gets an ASCII fallback and the
// exact name in filename* (RFC 8187), which Node accepts as a header value whatever the script.
import { validateHeaderValue } from 'node:http';
import { describe, expect, it } from 'vitest';
import { attachmentDisposition } from '../../src/api/content-disposition.js';

describe('attachmentDisposition', () => {
  it('keeps a plain ASCII name as it is', () => {
    expect(attachmentDisposition('findings.csv')).toBe('attachment; filename="findings.csv"');
    expect(attachmentDisposition("router x (v2)'s.json")).toBe('attachment; filename="router x (v2)\'s.json"');
  });

  it.each([
    ['符号.pdb', '__.pdb', '%E7%AC%A6%E5%8F%B7.pdb'],
    ['🔥.debug', '_.debug', '%F0%9F%94%A5.debug'],
    ['café "x" 50%.bin', 'caf_ _x_ 50_.bin', 'caf%C3%A9%20%22x%22%2050%25.bin'],
    ["a'(b)*.pdb", "a'(b)*.pdb", undefined],
    ["é'(b)*.pdb", "_'(b)*.pdb", '%C3%A9%27%28b%29%2A.pdb'],
  ])('%s → fallback %s, filename* %s', (name, fallback, encoded) => {
    const header = attachmentDisposition(name);
    expect(header).toBe(encoded ? `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}` : `attachment; filename="${fallback}"`);
    expect(() => validateHeaderValue('content-disposition', header)).not.toThrow();
  });

  it('Node refuses the unencoded name (why the download answered 500)', () => {
    expect(() => validateHeaderValue('content-disposition', 'attachment; filename="符号.pdb"')).toThrow();
  });
});
