// Kernel triage evidence beyond the configuration: symbols (System.map, kallsyms tables), shipped and built-in
// modules, the architecture, and the verdict rules that use them (kernel-triage.ts's table), including a built file
// whose vulnerable routine is not among the kernel's symbols (unknown: the code may sit under an option that is off).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileIndex } from '../../../src/engine/file-index.js';
import { gatherKernelEvidence, type KernelEvidence } from '../../../src/engine/vulns/kernel-evidence.js';
import { kallsymsNames } from '../../../src/engine/vulns/kernel-kallsyms.js';
import { moduleNamesOf, parseBuiltinModinfo, parseModuleList } from '../../../src/engine/vulns/kernel-modules.js';
import { parseSymbolList } from '../../../src/engine/vulns/kernel-symbols.js';
import { kernelApplicability } from '../../../src/engine/vulns/kernel-triage.js';
import { needCommands } from '../../support/requirements.js';
import { tempDir } from '../../support/temp-dirs.js';

const config = (options: Record<string, 'y' | 'm' | 'n'>): KernelEvidence['config'] => ({ source: 'boot/config-5.4.0', options });
const MIPS = { MIPS: 'y', NET: 'y', INET: 'y', EXT4_FS: 'y', NETFILTER: 'y', NF_TABLES: 'm', PPP: 'm', PPPOE: 'm', NET_SCH_QFQ: 'n' } as const;

/**
 * Compressed kallsyms tables as scripts/kallsyms.c lays them out for a 32-bit little-endian kernel: num_syms, names
 * (length + token indices), markers (every 256th symbol), the token table and its u16 index. Tokens: each byte used
 * in a name stands for itself; free bytes become two-character tokens seen often.
 */
function kallsymsTables(symbols: string[]): Buffer {
  const used = new Set(symbols.join('').split(''));
  const tokens: string[] = [];
  for (let b = 0; b < 256; b++) tokens.push(used.has(String.fromCharCode(b)) ? String.fromCharCode(b) : '');
  const pairs = ['_s', 'et', 're', 'in', 'ck', 'nf', 'p_', 'ta'];
  for (let b = 0, k = 0; b < 256 && k < pairs.length; b++) if (tokens[b] === '' && b !== 0) tokens[b] = pairs[k++]!;
  for (let b = 1; b < 256; b++) if (tokens[b] === '') tokens[b] = `~${b}`; // unused tokens still have a string
  tokens[0] = '\x7f';
  const byToken = new Map(tokens.map((t, i) => [t, i]));
  const names: Buffer[] = [];
  const markers: number[] = [];
  let offset = 0;
  symbols.forEach((name, i) => {
    if (i % 256 === 0) markers.push(offset);
    const codes: number[] = [];
    for (let p = 0; p < name.length;) {
      const pair = byToken.get(name.slice(p, p + 2));
      if (pair !== undefined && name.length - p >= 2) { codes.push(pair); p += 2; } else { codes.push(byToken.get(name[p]!)!); p += 1; }
    }
    names.push(Buffer.from([codes.length, ...codes]));
    offset += codes.length + 1;
  });
  const align = (b: Buffer, n: number) => Buffer.concat([b, Buffer.alloc((n - (b.length % n)) % n)]);
  const num = Buffer.alloc(4);
  num.writeUInt32LE(symbols.length);
  const namesBuf = align(Buffer.concat(names), 4);
  const markersBuf = Buffer.alloc(markers.length * 4);
  markers.forEach((m, i) => markersBuf.writeUInt32LE(m, i * 4));
  const table = align(Buffer.from(tokens.map((t) => `${t}\0`).join(''), 'latin1'), 4);
  const index = Buffer.alloc(512);
  let at = 0;
  tokens.forEach((t, i) => { index.writeUInt16LE(at, i * 2); at += Buffer.byteLength(t, 'latin1') + 1; });
  // some kernel text before, and the relative base and offsets after
  return Buffer.concat([Buffer.alloc(4096, 0x27), num, namesBuf, markersBuf, table, index, Buffer.alloc(1024, 0x11)]);
}

describe('kernel symbol evidence', () => {
  it('reads the text symbols of System.map and /proc/kallsyms lists', () => {
    expect(parseSymbolList('80001000 T _text\n80001234 t qfq_enqueue\n80002000 D jiffies\n8000a000 W weak_fn\nc0001000 t nft_do_chain\t[nf_tables]\n'))
      .toEqual(['_text', 'qfq_enqueue', 'weak_fn', 'nft_do_chain']);
  });

  it('decodes the compressed kallsyms tables of a raw kernel image', () => {
    const symbols: string[] = [];
    for (let i = 0; i < 700; i++) symbols.push(`${i % 3 === 0 ? 'D' : 'T'}sym_${i}_set`);
    symbols.push('Ttcp_v4_rcv', 'tqfq_enqueue', 'dstatic_data', 'Wweak_entry');
    const image = kallsymsTables(symbols);
    const names = kallsymsNames(image)!;
    expect(names).toBeDefined();
    expect(names).toContain('tcp_v4_rcv');
    expect(names).toContain('qfq_enqueue');
    expect(names).toContain('weak_entry');
    expect(names).not.toContain('static_data');
    expect(names).toHaveLength(symbols.filter((s) => /^[tTwW]/.test(s)).length);
    expect(kallsymsNames(Buffer.from('0\x001\x002\x003\x004\x005\x006\x007\x008\x009\x00 not a table'))).toBeUndefined();
  });
});

describe('kernel module evidence', () => {
  it('maps source files to module names and reads module lists', () => {
    expect(moduleNamesOf('drivers/net/ppp/pppoe.c')).toContain('pppoe');
    expect(moduleNamesOf('net/netfilter/nf_tables_api.c')).toContain('nf_tables');
    expect(moduleNamesOf('fs/ext4/inode.c')).toContain('ext4');
    expect(parseModuleList('kernel/net/sched/sch_qfq.ko\nkernel/drivers/net/ppp/ppp-generic.ko\n')).toEqual(['sch_qfq', 'ppp_generic']);
    expect(parseBuiltinModinfo(Buffer.from('ext4.description=Fourth Extended Filesystem\0ext4.license=GPL\0unix.license=GPL\0'))).toEqual(['ext4', 'unix']);
  });

  it.runIf(needCommands(['gcc'], 'the kernel module test'))('finds shipped .ko modules (name from .modinfo), their functions and architecture, and modules.builtin', async () => {
    const root = tempDir('firmscope-kmod');
    const dir = join(root, 'lib', 'modules', '5.4.43');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(root, 'pppoe.c'), [
      'static const char name[] __attribute__((section(".modinfo"), used)) = "name=pppoe";',
      'static const char lic[] __attribute__((section(".modinfo"), used)) = "license=GPL";',
      'int pppoe_rcv(int x) { return x + 1; }',
    ].join('\n'));
    execFileSync('gcc', ['-c', '-O2', '-o', join(dir, 'pppoe-renamed.ko'), join(root, 'pppoe.c')]);
    writeFileSync(join(dir, 'modules.builtin'), 'kernel/fs/ext4/ext4.ko\n');
    writeFileSync(join(dir, 'modules.order'), 'kernel/drivers/net/ppp/pppoe.ko\nkernel/net/sched/sch_qfq.ko\n');
    const evidence = await gatherKernelEvidence(await FileIndex.fromDirectory(root), []);
    expect(evidence.modules).toMatchObject({ shipped: [{ name: 'pppoe', path: 'lib/modules/5.4.43/pppoe-renamed.ko' }], builtin: ['ext4'], ordered: ['pppoe', 'sch_qfq'] });
    // the build made sch_qfq.ko, the image does not ship it: still unknown, and the reason says so
    expect(kernelApplicability(['net/sched/sch_qfq.c'], evidence)).toMatchObject({ verdict: 'unknown', rule: 'no-evidence', reason: expect.stringMatching(/the build made it as module sch_qfq\.ko, modules\.order/) });
    expect(kernelApplicability(['drivers/net/ppp/pppoe.c'], evidence)).toMatchObject({ verdict: 'applicable', rule: 'module-shipped' });
    expect(evidence.modules!.symbols).toContain('pppoe_rcv');
    expect(evidence.arch?.name).toBe('x86');
  });
});

describe('kernel triage rules', () => {
  const modules = (shipped: string[], builtin: string[] = [], symbols: string[] = []): KernelEvidence['modules'] => ({
    source: 'lib/modules', shipped: shipped.map((name) => ({ name, path: `lib/modules/5.4.43/${name}.ko` })), builtin, symbols, architecture: 'mipsel',
  });

  it('a built file whose vulnerable routine is not among the symbols stays unknown; a present routine makes it applicable', () => {
    const symbols = { source: 'boot/System.map-5.4.43 (System.map)', names: ['tcp_v4_rcv', 'ext4_readdir'] };
    const withSymbols: KernelEvidence = { config: config(MIPS), symbols };
    // table: built file, code under an option that is off → unknown unless the evidence shows more
    expect(kernelApplicability(['fs/ext4/inode.c'], withSymbols, ['ext4_inline_data_truncate'])).toMatchObject({
      verdict: 'unknown', rule: 'routine-not-in-symbols', reason: expect.stringMatching(/under an option that is off/),
    });
    expect(kernelApplicability(['fs/ext4/dir.c'], withSymbols, ['ext4_readdir'])).toMatchObject({ verdict: 'applicable', rule: 'symbol-present', reason: expect.stringMatching(/ext4_readdir is a symbol of boot\/System.map/) });
    // without routines in the record, a built file is the affected code
    expect(kernelApplicability(['fs/ext4/inode.c'], withSymbols)).toMatchObject({ verdict: 'applicable', rule: 'config-built' });
    // without symbols to look in, the routine cannot be checked: the file's build decides
    expect(kernelApplicability(['fs/ext4/inode.c'], { config: config(MIPS) }, ['ext4_inline_data_truncate'])).toMatchObject({ verdict: 'applicable', rule: 'config-built' });
    // an option off stays not built; one affected file built is enough
    expect(kernelApplicability(['net/sched/sch_qfq.c'], withSymbols, ['qfq_enqueue'])).toMatchObject({ verdict: 'not-applicable', rule: 'config-option-off' });
    expect(kernelApplicability(['net/sched/sch_qfq.c', 'fs/ext4/dir.c'], withSymbols, ['ext4_readdir']).verdict).toBe('applicable');
    // the symbol shows more than the table (a file moved between kernel versions)
    expect(kernelApplicability(['net/sched/sch_qfq.c'], { config: config(MIPS), symbols: { source: 's', names: ['qfq_enqueue'] } }, ['qfq_enqueue']).verdict).toBe('applicable');
  });

  it('=m counts as built when the module ships or is built in', () => {
    expect(kernelApplicability(['drivers/net/ppp/pppoe.c'], { config: config(MIPS), modules: modules(['pppoe']) })).toMatchObject({
      verdict: 'applicable', rule: 'module-shipped', reason: expect.stringMatching(/module pppoe.ko ships .*CONFIG_PPPOE=m/),
    });
    expect(kernelApplicability(['net/netfilter/nf_tables_api.c'], { config: config(MIPS), modules: modules(['pppoe']) })).toMatchObject({ verdict: 'unknown', rule: 'module-not-shipped' });
    expect(kernelApplicability(['net/netfilter/nf_tables_api.c'], { config: config(MIPS), modules: modules([], ['nf_tables']) })).toMatchObject({ verdict: 'applicable', rule: 'module-builtin' });
  });

  it('without a configuration: shipped modules, symbols and the architecture decide, the rest is unknown', () => {
    const evidence: KernelEvidence = { modules: modules(['pppoe', 'nf_tables'], [], ['nft_do_chain']), arch: { name: 'mips', source: 'modules' } };
    expect(kernelApplicability(['drivers/net/ppp/pppoe.c'], evidence)).toMatchObject({ verdict: 'applicable', rule: 'module-shipped' });
    expect(kernelApplicability(['net/netfilter/nf_tables_core.c'], evidence, ['nft_do_chain'])).toMatchObject({ verdict: 'applicable', rule: 'symbol-present' });
    expect(kernelApplicability(['arch/x86/kvm/x86.c'], evidence)).toMatchObject({ verdict: 'not-applicable', rule: 'other-architecture' });
    expect(kernelApplicability(['arch/mips/kernel/traps.c'], evidence)).toMatchObject({ verdict: 'unknown', rule: 'no-evidence' });
    expect(kernelApplicability(['net/sched/sch_qfq.c'], evidence)).toMatchObject({ verdict: 'unknown', rule: 'no-evidence' });
    expect(kernelApplicability([], evidence, ['nft_do_chain'])).toMatchObject({ verdict: 'applicable', rule: 'symbol-present' });
  });

  it('a System.map in the image is found as symbol evidence', async () => {
    const root = tempDir('firmscope-ksym');
    mkdirSync(join(root, 'boot'));
    writeFileSync(join(root, 'boot', 'System.map-5.4.43'), '80001000 T _text\n80001234 t qfq_enqueue\n');
    const evidence = await gatherKernelEvidence(await FileIndex.fromDirectory(root), []);
    expect(evidence.symbols).toEqual({ source: 'boot/System.map-5.4.43 (System.map)', names: ['_text', 'qfq_enqueue'] });
  });
});
