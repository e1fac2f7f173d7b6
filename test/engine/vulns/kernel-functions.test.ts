// Kernel triage through function names (tables/kernel-file-functions.json.gz, generated from the same Debian
// linux-source-6.1 tree as the kbuild table): a function only the affected file defines, seen in the kernel's
// symbols, shows the file built where the configuration is missing or the kbuild table cannot map it; and a built
// file whose vulnerable routine is defined under `#ifdef CONFIG_X` with X off stays unknown.
import { describe, expect, it } from 'vitest';
import { evaluateCondition } from '../../../src/engine/vulns/kernel-conditions.js';
import type { KernelEvidence } from '../../../src/engine/vulns/kernel-evidence.js';
import { kernelApplicability, kernelFileFunctions, kernelFileOptions } from '../../../src/engine/vulns/kernel-triage.js';

const config = (options: Record<string, 'y' | 'm' | 'n'>): KernelEvidence['config'] => ({ source: 'boot/config-5.4.0', options });
const systemMap = (names: string[]): KernelEvidence['symbols'] => ({ source: 'boot/System.map-5.4.43 (System.map)', names });

describe('preprocessor conditions on options', () => {
  const c = new Map<string, 'y' | 'm' | 'n'>([['A', 'y'], ['M', 'm'], ['N', 'n']]);
  it('are evaluated as kconfig defines them, three-valued', () => {
    expect(evaluateCondition('(defined(CONFIG_A))', c)).toBe(true);
    expect(evaluateCondition('(defined(CONFIG_M))', c)).toBe(false); // =m defines CONFIG_M_MODULE, not CONFIG_M
    expect(evaluateCondition('defined(CONFIG_M_MODULE)', c)).toBe(true);
    expect(evaluateCondition('(IS_ENABLED(CONFIG_M))', c)).toBe(true);
    expect(evaluateCondition('IS_BUILTIN(CONFIG_M) || IS_MODULE(CONFIG_N)', c)).toBe(false);
    expect(evaluateCondition('(defined(CONFIG_A)) && !(defined(CONFIG_N))', c)).toBe(true);
    expect(evaluateCondition('!(defined(CONFIG_A)) && (defined(CONFIG_NOT_LISTED))', c)).toBe(false);
    expect(evaluateCondition('defined CONFIG_N || CONFIG_A', c)).toBe(true);
    // something the configuration does not tell: undefined, unless the rest decides
    expect(evaluateCondition('(THREAD_SIZE >= PAGE_SIZE || defined(CONFIG_N))', c)).toBeUndefined();
    expect(evaluateCondition('(THREAD_SIZE >= PAGE_SIZE) && defined(CONFIG_N)', c)).toBe(false);
    expect(evaluateCondition('CONFIG_HZ > 100', c)).toBeUndefined();
  });
});

describe('kernel triage through function names', () => {
  it('the shipped table names functions only one file defines, and functions defined under options', () => {
    const { names, guards } = kernelFileFunctions();
    expect(names.get('net/sched/sch_qfq.c')).toContain('qfq_find_class');
    expect(guards.get('fs/ext4/inode.c')?.ext4_get_reserved_space).toBe('(defined(CONFIG_QUOTA))');
    expect(guards.get('fs/ext4/inode.c')?.ext4_evict_inode).toBeUndefined();
  });

  it('a built file whose vulnerable routine sits under an option that is off stays unknown; on, or in the symbols, it is applicable', () => {
    const ext4 = { EXT4_FS: 'y', QUOTA: 'n' } as const;
    expect(kernelApplicability(['fs/ext4/inode.c'], { config: config(ext4) }, ['ext4_get_reserved_space'])).toMatchObject({
      verdict: 'unknown', rule: 'routine-under-option-off',
      reason: 'fs/ext4/inode.c: built (CONFIG_EXT4_FS=y), but its vulnerable code sits under an option that is off: ext4_get_reserved_space (#if (defined(CONFIG_QUOTA)))',
    });
    expect(kernelApplicability(['fs/ext4/inode.c'], { config: config({ ...ext4, QUOTA: 'y' }) }, ['ext4_get_reserved_space'])).toMatchObject({ verdict: 'applicable', rule: 'config-built' });
    // one routine outside any condition: that code is built
    expect(kernelApplicability(['fs/ext4/inode.c'], { config: config(ext4) }, ['ext4_get_reserved_space', 'ext4_evict_inode'])).toMatchObject({ verdict: 'applicable' });
    // the evidence shows more: the routine is a symbol of the kernel
    expect(kernelApplicability(['fs/ext4/inode.c'], { config: config(ext4), symbols: systemMap(['ext4_get_reserved_space']) }, ['ext4_get_reserved_space'])).toMatchObject({ verdict: 'applicable', rule: 'symbol-present' });
    // another file of the CVE built: applicable
    expect(kernelApplicability(['fs/ext4/inode.c', 'fs/ext4/super.c'], { config: config(ext4) }, ['ext4_get_reserved_space']).verdict).toBe('applicable');
  });

  it('without a configuration, a function only the file defines in the kernel symbols shows it built; none there leaves it unknown', () => {
    const evidence: KernelEvidence = { symbols: systemMap(['qfq_find_class', 'tcp_v4_rcv']) };
    expect(kernelApplicability(['net/sched/sch_qfq.c'], evidence)).toMatchObject({
      verdict: 'applicable', rule: 'file-symbol-present', reason: 'net/sched/sch_qfq.c: qfq_find_class, defined only in this file, is a symbol of boot/System.map-5.4.43 (System.map)',
    });
    const [a, b] = kernelFileFunctions().names.get('fs/ext4/inode.c')!;
    expect(kernelApplicability(['fs/ext4/inode.c'], evidence)).toMatchObject({
      verdict: 'unknown', rule: 'no-evidence', reason: expect.stringContaining(`none of its functions ${a}, ${b} is in the 2 symbols read`),
    });
  });

  it('where the kbuild table cannot map a file, its functions in the symbols can', () => {
    const file = 'drivers/clk/ti/divider.c';
    expect(kernelFileOptions().has(file)).toBe(false);
    const evidence: KernelEvidence = { config: config({ ARM: 'y', COMMON_CLK: 'y' }), symbols: systemMap(['ti_clk_parse_divider_data']) };
    expect(kernelApplicability([file], evidence)).toMatchObject({ verdict: 'applicable', rule: 'file-symbol-present' });
    expect(kernelApplicability([file], { ...evidence, symbols: systemMap(['other']) })).toMatchObject({ verdict: 'unknown', rule: 'file-not-in-table' });
  });

  it('the symbols outweigh an option the table says is off (Makefiles of another kernel version)', () => {
    const evidence: KernelEvidence = { config: config({ NET_SCH_QFQ: 'n' }), symbols: systemMap(['qfq_find_class']) };
    expect(kernelApplicability(['net/sched/sch_qfq.c'], evidence)).toMatchObject({ verdict: 'applicable', rule: 'file-symbol-present' });
    expect(kernelApplicability(['net/sched/sch_qfq.c'], { config: config({ NET_SCH_QFQ: 'n' }) })).toMatchObject({ verdict: 'not-applicable', rule: 'config-option-off' });
  });
});
