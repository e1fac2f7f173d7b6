import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bufferSource } from '../../../src/engine/binaries/byte-source.js';
import { parsePe } from '../../../src/engine/binaries/pe.js';
import { FormatError } from '../../../src/engine/format-error.js';
import { corpus, haveShared } from '../../support/shared.js';
import { buildPe, versionInfo } from './pe-builder.js';

const sample = buildPe({
  imports: { 'KERNEL32.dll': ['CreateFileW', 'ReadFile'], 'libcurl.dll': ['curl_easy_init'] },
  version: versionInfo({ CompanyName: 'Example Corp', ProductName: 'Widget', ProductVersion: '7.80.0' }, [7, 80, 0, 1]),
});

describe('parsePe on a generated PE32+ DLL', () => {
  it('reads machine, DLL flag, imports and the version resource', async () => {
    const pe = await parsePe(bufferSource(sample));
    expect(pe).toMatchObject({ format: 'pe', architecture: 'x86_64', is64: true, isDll: true, subsystem: 10, problems: [] });
    expect(pe.imports).toMatchObject([
      { dll: 'KERNEL32.dll', functions: ['CreateFileW', 'ReadFile'] },
      { dll: 'libcurl.dll', functions: ['curl_easy_init'] },
    ]);
    // One IAT slot per function, 8 bytes apart in a PE32+ image.
    const [kernel32] = pe.imports;
    expect(kernel32!.slots).toHaveLength(2);
    expect(kernel32!.slots[1]! - kernel32!.slots[0]!).toBe(8);
    expect(pe.version).toEqual({
      fileVersion: '7.80.0.1',
      productVersion: '7.80.0.1',
      strings: { CompanyName: 'Example Corp', ProductName: 'Widget', ProductVersion: '7.80.0' },
    });
  });
});

describe('parsePe on bad input', () => {
  it('rejects files without MZ or PE signatures', async () => {
    await expect(parsePe(bufferSource(Buffer.from('\x7fELF....')))).rejects.toThrow(FormatError);
    const noSig = Buffer.from(sample);
    noSig.write('XX', 0x40, 'latin1');
    await expect(parsePe(bufferSource(noSig))).rejects.toThrow(/PE\\0\\0/);
    const badMagic = Buffer.from(sample);
    badMagic.writeUInt16LE(0x999, 0x58);
    await expect(parsePe(bufferSource(badMagic))).rejects.toThrow(/optional header magic/);
  });

  it('rejects a truncated header and keeps headers when the section data is cut off', async () => {
    await expect(parsePe(bufferSource(sample.subarray(0, 0x60)))).rejects.toThrow(FormatError);
    const pe = await parsePe(bufferSource(sample.subarray(0, 0x410)));
    expect(pe.architecture).toBe('x86_64');
    expect(pe.version).toBeUndefined();
  });

  it('survives random corruption without throwing anything but FormatError', async () => {
    let seed = 11;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let round = 0; round < 60; round++) {
      const bad = Buffer.from(sample);
      for (let i = 0; i < 8; i++) bad[0x40 + Math.floor(rnd() * (bad.length - 0x40))] = Math.floor(rnd() * 256);
      try {
        await parsePe(bufferSource(bad));
      } catch (err) {
        expect(err).toBeInstanceOf(FormatError);
      }
    }
  });
});

describe.runIf(haveShared('corpus', 'nmap.exe'))('parsePe on nmap.exe', () => {
  // Expectations checked with `objdump -p nmap.exe` and a UTF-16 dump of the RT_VERSION resource.
  it('reads the header, five imported DLLs and the (stale) version resource', async () => {
    const pe = await parsePe(bufferSource(readFileSync(corpus('nmap.exe'))));
    expect(pe).toMatchObject({ format: 'pe', architecture: 'x86', is64: false, isDll: false, subsystem: 3 });
    expect(pe.sections.map((s) => s.name)).toEqual(['.text', '.rdata', '.data', '.rsrc', '.reloc']);
    expect(pe.imports.map((i) => i.dll)).toEqual(['WS2_32.dll', 'ADVAPI32.dll', 'SHELL32.dll', 'USER32.dll', 'KERNEL32.dll']);
    expect(pe.imports[0].functions).toContain('WSASocketA');
    expect(pe.imports[0].functions).toContain('#10');
    expect(pe.version?.strings).toMatchObject({ CompanyName: 'Insecure.Org', ProductName: 'Nmap', FileVersion: '6.02' });
  });
});
