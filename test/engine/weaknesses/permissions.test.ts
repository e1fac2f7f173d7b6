// World-writable files under system folders and setuid-root programs beyond the expected few, from the modes
// and owners the filesystem stores (set per node here, as squashfs/cpio/ext carry them).
import { describe, expect, it } from 'vitest';
import { unexpectedSetuidRule } from '../../../src/engine/weaknesses/unexpected-setuid.rule.js';
import { worldWritableRule } from '../../../src/engine/weaknesses/world-writable.rule.js';
import { analyze, fixture } from './support.js';

describe('world-writable', () => {
  it('reports world-writable files and non-sticky folders under /etc, /bin, /sbin, /usr and /lib', async () => {
    const ctx = await analyze(
      fixture({
        'etc/init.d/rcS': { content: '#!/bin/sh\n', mode: 0o777 },
        'etc/config/network': { content: 'config interface lan\n', mode: 0o666 },
        'usr/lib/libfoo.so': { content: '\x7fELF', mode: 0o646 },
        'usr/www': { kind: 'directory', mode: 0o777 },
        'etc/hosts': { content: '127.0.0.1 localhost\n', mode: 0o644 },
      }),
      [worldWritableRule],
    );
    expect(ctx.findings.map((f) => [f.name, f.severity, f.identifiers[0]!.cwe, f.occurrences[0]!.evidence])).toEqual([
      ['World-writable file /etc/init.d/rcS', 'high', 'CWE-732', '/etc/init.d/rcS mode 0777 uid 0'],
      ['World-writable file /etc/config/network', 'medium', 'CWE-732', '/etc/config/network mode 0666 uid 0'],
      ['World-writable file /usr/lib/libfoo.so', 'high', 'CWE-732', '/usr/lib/libfoo.so mode 0646 uid 0'],
      ['World-writable directory /usr/www', 'medium', 'CWE-732', '/usr/www mode 0777 uid 0'],
    ]);
  });

  it('does not report symlinks, sticky folders, /tmp, /var, devices or files without a stored mode', async () => {
    const ctx = await analyze(
      fixture({
        'bin/sh': { kind: 'symlink', mode: 0o777, linkTarget: 'busybox' },
        'usr/tmp': { kind: 'directory', mode: 0o1777 },
        'tmp/upload': { content: 'x', mode: 0o666 },
        'var/run/app.pid': { content: '1', mode: 0o666 },
        'lib/firmware': { kind: 'device', mode: 0o666 },
        'www/index.html': { content: '<html>', mode: 0o666 },
      }),
      [worldWritableRule],
    );
    expect(ctx.findings).toEqual([]);
  });
});

describe('unexpected-setuid', () => {
  it('reports setuid-root programs other than su, passwd, ping, mount, busybox, ...; a setuid shell is high', async () => {
    const ctx = await analyze(
      fixture({
        'bin/busybox': { content: '\x7fELF', mode: 0o4755 },
        'bin/su': { content: '\x7fELF', mode: 0o4755 },
        'usr/bin/passwd': { content: '\x7fELF', mode: 0o4711 },
        'bin/ping': { content: '\x7fELF', mode: 0o4755 },
        'usr/sbin/diagd': { content: '\x7fELF', mode: 0o4755 },
        'bin/bash': { content: '\x7fELF', mode: 0o4755 },
        'usr/bin/helper': { content: '\x7fELF', mode: 0o4755, uid: 1000 },
        'usr/bin/wall': { content: '\x7fELF', mode: 0o2755 },
      }),
      [unexpectedSetuidRule],
    );
    expect(ctx.findings.map((f) => [f.name, f.severity, f.identifiers[0]!.cwe, f.occurrences[0]!.evidence])).toEqual([
      ['Unexpected setuid-root program /usr/sbin/diagd', 'medium', 'CWE-732', '/usr/sbin/diagd mode 4755 uid 0'],
      ['Unexpected setuid-root program /bin/bash', 'high', 'CWE-732', '/bin/bash mode 4755 uid 0'],
    ]);
  });
});
