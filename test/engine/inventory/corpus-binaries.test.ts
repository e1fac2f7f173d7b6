// Plain executables from ../shared/corpus, inventoried in place (a FileIndex over the corpus folder with one
// node). Every expectation was checked with `strings`/`file`/`objdump -p` first:
//   busybox-mipsel     'BusyBox v1.31.0 (2019-06-10 15:54:51 CEST)'; ELF32 LSB MIPS, static
//   ncat-linux-x86_64  'http://nmap.org/ncat' 6.49BETA1 'Version %s ( %s )'; 'OpenSSL 1.0.2c 12 Jun 2015';
//                      'libpcap version 1.7.3'; '$LuaVersion: Lua 5.2.3  Copyright (C) 1994-2013'
//   tcpdump-linux-arm  bare '4.7.4' (the only x.y.z string) and 'libpcap version 1.7.3'; ELF32 ARM, static
//   nmap.exe           'Nmap' 6.47 'http://nmap.org' and build paths 'nmap-6.47' (its RT_VERSION resource still
//                      says FileVersion 6.02: a stale resource); 'OpenSSL 1.0.2a 19 Mar 2015';
//                      ' deflate 1.2.8 Copyright 1995-2013'; 'Lua 5.2.3'; PE32 i386
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AnalysisContext } from '../../../src/engine/analyzer.js';
import { corpus, haveShared, sharedPath } from '../../support/shared.js';
import { runInventory, singleFileIndex } from './support.js';

const inventoryOf = (name: string) => runInventory(singleFileIndex(sharedPath('corpus'), name, statSync(corpus(name)).size));

const summary = (ctx: AnalysisContext) => ctx.components.map((c) => `${c.name}@${c.version ?? ''} ${c.cpe ?? '-'}`).sort();

describe.runIf(haveShared('corpus', 'busybox-mipsel'))('corpus executables', () => {
  it('busybox-mipsel: BusyBox 1.31.0 only', async () => {
    const ctx = await inventoryOf('busybox-mipsel');
    expect(summary(ctx)).toEqual(['busybox@1.31.0 cpe:2.3:a:busybox:busybox:1.31.0:*:*:*:*:*:*:*']);
    expect(ctx.components[0]).toMatchObject({ architecture: 'mipsel', paths: ['busybox-mipsel'] });
    expect(ctx.components[0].hashes?.sha256).toMatch(/^7495ae45f7480687/);
  });

  it('ncat-linux-x86_64: ncat 6.49BETA1 with statically linked OpenSSL 1.0.2c, libpcap 1.7.3 and Lua 5.2.3', async () => {
    const ctx = await inventoryOf('ncat-linux-x86_64');
    expect(summary(ctx)).toEqual([
      'libpcap@1.7.3 cpe:2.3:a:tcpdump:libpcap:1.7.3:*:*:*:*:*:*:*',
      'lua@5.2.3 cpe:2.3:a:lua:lua:5.2.3:*:*:*:*:*:*:*',
      'ncat@6.49BETA1 -',
      'openssl@1.0.2c cpe:2.3:a:openssl:openssl:1.0.2c:*:*:*:*:*:*:*',
    ]);
    expect(ctx.components.every((c) => c.architecture === 'x86_64')).toBe(true);
  });

  it('tcpdump-linux-arm: tcpdump 4.7.4 and libpcap 1.7.3', async () => {
    const ctx = await inventoryOf('tcpdump-linux-arm');
    expect(summary(ctx)).toEqual(['libpcap@1.7.3 cpe:2.3:a:tcpdump:libpcap:1.7.3:*:*:*:*:*:*:*', 'tcpdump@4.7.4 cpe:2.3:a:tcpdump:tcpdump:4.7.4:*:*:*:*:*:*:*']);
    expect(ctx.components[0].architecture).toBe('arm');
  });

  it('nmap.exe: Nmap 6.47 from its code, not the stale 6.02 resource, plus OpenSSL 1.0.2a, zlib 1.2.8 and Lua 5.2.3', async () => {
    const ctx = await inventoryOf('nmap.exe');
    expect(summary(ctx)).toEqual([
      'lua@5.2.3 cpe:2.3:a:lua:lua:5.2.3:*:*:*:*:*:*:*',
      'nmap@6.47 cpe:2.3:a:nmap:nmap:6.47:*:*:*:*:*:*:*',
      'openssl@1.0.2a cpe:2.3:a:openssl:openssl:1.0.2a:*:*:*:*:*:*:*',
      'zlib@1.2.8 cpe:2.3:a:zlib:zlib:1.2.8:*:*:*:*:*:*:*',
    ]);
    expect(ctx.components.every((c) => c.architecture === 'x86')).toBe(true);
    expect(ctx.problems).toContainEqual(expect.objectContaining({ source: 'pe-version', kind: 'warning', message: expect.stringContaining('6.02') }));
  });
});
