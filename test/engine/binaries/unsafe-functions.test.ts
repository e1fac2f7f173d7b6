// The rules behind the findings: which symbols are unsafe functions, what makes a binary network-facing, and
// how call sites are named and totalled.
import { describe, expect, it } from 'vitest';
import { isNetworkFacing } from '../../../src/engine/binaries/network-facing.js';
import { FunctionIndex, totalUnsafeUses, UnsafeCallCollector, unsafeFunctionName } from '../../../src/engine/binaries/unsafe-functions.js';

describe('unsafeFunctionName', () => {
  it('maps glibc and MSVC CRT spellings to the canonical name', () => {
    expect(unsafeFunctionName('strcpy', 'elf')).toBe('strcpy');
    expect(unsafeFunctionName('__isoc99_sscanf', 'elf')).toBe('sscanf');
    expect(unsafeFunctionName('__isoc23_vfscanf', 'elf')).toBe('vfscanf');
    expect(unsafeFunctionName('_popen', 'pe')).toBe('popen');
    expect(unsafeFunctionName('_wsystem', 'pe')).toBe('system');
    expect(unsafeFunctionName('_execvp', 'pe')).toBe('execvp');
  });

  it('leaves bounded and fortified functions alone', () => {
    for (const name of ['strncpy', 'snprintf', '__sprintf_chk', '__strcpy_chk', 'fgets', 'strlcpy', '_popen', 'wsystem']) expect(unsafeFunctionName(name, 'elf'), name).toBeUndefined();
    expect(unsafeFunctionName('__isoc99_sscanf', 'pe')).toBeUndefined();
  });
});

describe('isNetworkFacing', () => {
  it('is a server by its imports or a daemon by its name', () => {
    expect(isNetworkFacing('bin/app', new Set(['socket', 'bind']))).toBe(true);
    expect(isNetworkFacing('bin/app', new Set(['socket', 'accept']))).toBe(true);
    expect(isNetworkFacing('bin/client', new Set(['socket', 'connect']))).toBe(false);
    expect(isNetworkFacing('usr/sbin/telnetd', new Set())).toBe(true);
    expect(isNetworkFacing('www/httpd.exe', new Set())).toBe(true);
    expect(isNetworkFacing('usr/bin/httpd-helper', new Set())).toBe(false);
  });
});

describe('UnsafeCallCollector', () => {
  it('names callers by the nearest preceding function, counts a site once, and leaves unnamed sites out', () => {
    const collector = new UnsafeCallCollector([{ name: 'strcpy', symbol: 'strcpy', linkage: 'imported' }], new FunctionIndex(() => [{ address: 0x2000, name: 'b' }, { address: 0x1000, name: 'a' }]));
    for (const site of [0x1004, 0x1008, 0x2010, 0x2010, 0x0800]) collector.onCall(0, site);
    expect(collector.result(true)).toEqual([{ name: 'strcpy', symbol: 'strcpy', linkage: 'imported', callSites: 4, callers: [{ function: 'a', callSites: 2 }, { function: 'b', callSites: 1 }] }]);
    expect(collector.result(false)).toEqual([{ name: 'strcpy', symbol: 'strcpy', linkage: 'imported', callers: [] }]);
    expect(totalUnsafeUses([{ unsafeUses: 4 }, { unsafeUses: 3 }])).toBe(7);
  });
});
