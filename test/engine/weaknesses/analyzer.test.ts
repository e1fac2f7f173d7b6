// The weaknesses stage as a whole: registered after crypto, rule crashes contained, one finding per fingerprint,
// nothing on a clean root filesystem, and private keys left to the crypto stage (no duplicate finding).
import { describe, expect, it } from 'vitest';
import { analyzers } from '../../../src/engine/analyzers.js';
import { createCryptoAnalyzer } from '../../../src/engine/crypto/analyzer.js';
import { weaknessFinding } from '../../../src/engine/weaknesses/finding.js';
import type { WeaknessRule } from '../../../src/engine/weaknesses/rule.js';
import { weaknessRules } from '../../../src/engine/weaknesses/rules.js';
import { createWeaknessesAnalyzer, weaknessesAnalyzer } from '../../../src/engine/weaknesses/weaknesses.analyzer.js';
import { analyze, fixture } from './support.js';

const CLEAN_ROOT = {
  'etc/passwd': 'root:x:0:0:root:/root:/bin/ash\ndaemon:*:1:1:daemon:/var:/bin/false\nnobody:*:65534:65534:nobody:/var:/bin/false\n',
  'etc/shadow': { content: 'root:$6$Q2l7dEqv$aGxXb1sJk3yP0vC9cT1oXQ0uWbQz4kQv1nJ1u6wWfZ8gYq3l7JkT2b3rA1cD5eF7gH9iJ0kL2mN4oP6qR8sT0u:18000:0:99999:7:::\ndaemon:*:18000:0:99999:7:::\nnobody:*:18000:0:99999:7:::\n', mode: 0o600 },
  'etc/inittab': '::sysinit:/etc/init.d/rcS S boot\n::shutdown:/etc/init.d/rcS K shutdown\n::askconsole:/usr/libexec/login.sh\n',
  'usr/libexec/login.sh': '#!/bin/sh\nexec /bin/login\n',
  'etc/init.d/rcS': '#!/bin/sh\nfor i in /etc/rc.d/S*; do $i start; done\n',
  'etc/init.d/dropbear': '#!/bin/sh /etc/rc.common\nPROG=/usr/sbin/dropbear\nstart_service() {\n\tprocd_set_param command "$PROG" -F -P /var/run/dropbear.pid\n}\n',
  'etc/config/system': "config system\n\toption hostname 'OpenWrt'\n\toption ttylogin '1'\n",
  'etc/ppp/options': 'noauth\n',
  'bin/busybox': { content: '\x7fELF\x01\x01\x01\0 password=%s', mode: 0o4755 },
  'bin/sh': { kind: 'symlink', mode: 0o777, linkTarget: 'busybox' },
  'tmp': { kind: 'directory', mode: 0o1777 },
  'usr/share/man/man1/passwd.1': 'password=example\n',
} as const;

describe('weaknesses analyzer', () => {
  it('is registered after the crypto stage', () => {
    const ids = analyzers.map((a) => a.id);
    expect(ids).toContain('weaknesses');
    expect(ids.indexOf('weaknesses')).toBeGreaterThan(ids.indexOf('crypto'));
    expect(analyzers).toContain(weaknessesAnalyzer);
  });

  it('finds nothing on a clean root filesystem', async () => {
    const ctx = await analyze(fixture(CLEAN_ROOT));
    expect(ctx.findings).toEqual([]);
    expect(ctx.problems).toEqual([]);
  });

  it('every rule has a unique kebab-case id', () => {
    const ids = weaknessRules.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
  });

  it('contains a crashing rule as a problem and still runs the others', async () => {
    const crashing: WeaknessRule = { id: 'crashing', run: async () => { throw new Error('boom'); } };
    const ctx = await analyze(fixture({ 'etc/shadow': 'root::0:0:99999:7:::\n' }), [crashing, ...weaknessRules]);
    expect(ctx.problems).toEqual([{ source: 'weakness/crashing', kind: 'error', message: 'rule failed: boom' }]);
    expect(ctx.findings.map((f) => f.pname)).toEqual(['empty-password']);
  });

  it('merges findings with one fingerprint into one finding with all occurrences, described by the most severe', async () => {
    const severities = ['low', 'high', 'medium'] as const;
    const thrice: WeaknessRule = {
      id: 'thrice',
      run: async () => severities.map((severity, n) => weaknessFinding('thrice', { where: '/etc/x', cwe: 'CWE-1188', severity, name: `x${n}`, description: 'x', recommendedAction: 'x', occurrences: [{ path: `p${n}` }] })),
    };
    const ctx = await analyze(fixture({}), [thrice]);
    expect(ctx.findings.map((f) => [f.name, f.severity, f.occurrences])).toEqual([['x1', 'high', [{ path: 'p0' }, { path: 'p1' }, { path: 'p2' }]]]);
  });

  it('leaves private keys to the crypto stage: one private-key finding, from crypto, none from the weakness rules', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const index = fixture({ 'etc/ssl/private/device.key': pem, 'etc/config/uhttpd': `option key '/etc/ssl/private/device.key'\n` });
    const ctx = await analyze(index, []);
    await createCryptoAnalyzer({ now: () => new Date('2026-11-22T00:00:00Z') }).run(ctx);
    await createWeaknessesAnalyzer().run(ctx);
    const keyFindings = ctx.findings.filter((f) => f.identifiers.some((i) => i.cwe === 'CWE-321' || i.cwe === 'CWE-798'));
    expect(keyFindings.map((f) => f.pname)).toEqual(['private-key-in-image']);
    expect(JSON.stringify(ctx.findings)).not.toContain('BEGIN PRIVATE KEY');
  });
});
