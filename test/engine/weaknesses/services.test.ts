// Services that should not run by default: telnetd (and its built-in accounts), console shells without login
// and debug daemons, started from inittab, rc scripts or inetd.conf; decoys that mention them without starting them.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { commandsOf } from '../../../src/engine/weaknesses/startup.js';
import { consoleWithoutLoginRule } from '../../../src/engine/weaknesses/console-without-login.rule.js';
import { debugServiceRule } from '../../../src/engine/weaknesses/debug-service.rule.js';
import { telnetEnabledRule } from '../../../src/engine/weaknesses/telnet-enabled.rule.js';
import { telnetdBuiltinAccountRule } from '../../../src/engine/weaknesses/telnetd-builtin-account.rule.js';
import { analyze, fixture } from './support.js';

const digest = (secret: string) => `sha256:${createHash('sha256').update(secret).digest('hex').slice(0, 8)}`;
const summary = (ctx: Awaited<ReturnType<typeof analyze>>) =>
  ctx.findings.map((f) => ({ name: f.name, severity: f.severity, cwe: f.identifiers[0]!.cwe, evidence: f.occurrences.map((o) => o.evidence) }));

describe('shell command parsing', () => {
  it('finds the programs a line runs, unwrapping exec, busybox, procd and start-stop-daemon', () => {
    expect(commandsOf('[ -x /usr/sbin/telnetd ] && /usr/sbin/telnetd -l /bin/sh & # start it')).toEqual([
      { program: '[', args: ['-x', '/usr/sbin/telnetd', ']'] },
      { program: 'telnetd', args: ['-l', '/bin/sh'] },
    ]);
    expect(commandsOf('exec busybox telnetd -F')).toEqual([{ program: 'telnetd', args: ['-F'] }]);
    expect(commandsOf('procd_set_param command /usr/sbin/telnetd -F -l /bin/login.sh')).toEqual([{ program: 'telnetd', args: ['-F', '-l', '/bin/login.sh'] }]);
    expect(commandsOf('start-stop-daemon -S -b -x /usr/sbin/gdbserver -- :1234 /bin/app')).toEqual([{ program: 'gdbserver', args: [':1234', '/bin/app'] }]);
    expect(commandsOf('echo "telnetd -l /bin/sh"; killall telnetd')).toEqual([
      { program: 'echo', args: ['telnetd -l /bin/sh'] },
      { program: 'killall', args: ['telnetd'] },
    ]);
  });
});

describe('telnet-enabled', () => {
  it('reports telnetd started from inittab, rcS, init.d scripts and inetd.conf, one finding per file with each line', async () => {
    const ctx = await analyze(
      fixture({
        'etc/inittab': '::sysinit:/etc/init.d/rcS\n::respawn:/usr/sbin/telnetd -F -l /bin/sh\n',
        'etc/init.d/rcS': '#!/bin/sh\nmount -a\n# telnetd is started below\n/usr/sbin/utelnetd -d &\nbusybox telnetd -p 2323\n',
        'etc/init.d/S50telnet': '#!/bin/sh\ncase "$1" in\nstart) start-stop-daemon -S -x /usr/sbin/telnetd ;;\nstop) killall telnetd ;;\nesac\n',
        'etc/inetd.conf': '# telnet stream tcp nowait root /usr/sbin/telnetd telnetd\ntelnet stream tcp nowait root /usr/sbin/in.telnetd in.telnetd\n',
      }),
      [telnetEnabledRule],
    );
    expect(summary(ctx)).toEqual([
      { name: 'telnet gives a shell without login (/etc/inittab)', severity: 'critical', cwe: 'CWE-306', evidence: ['/etc/inittab:2: ::respawn:/usr/sbin/telnetd -F -l /bin/sh'] },
      { name: 'telnet server started at boot (/etc/inetd.conf)', severity: 'high', cwe: 'CWE-1188', evidence: ['/etc/inetd.conf:2: telnet stream tcp nowait root /usr/sbin/in.telnetd in.telnetd'] },
      { name: 'telnet server started at boot (/etc/init.d/rcS)', severity: 'high', cwe: 'CWE-1188', evidence: ['/etc/init.d/rcS:4: /usr/sbin/utelnetd -d &', '/etc/init.d/rcS:5: busybox telnetd -p 2323'] },
      { name: 'telnet server started at boot (/etc/init.d/S50telnet)', severity: 'high', cwe: 'CWE-1188', evidence: ['/etc/init.d/S50telnet:3: start) start-stop-daemon -S -x /usr/sbin/telnetd ;;'] },
    ]);
  });

  it('reports telnetd and debug daemons of enabled systemd units, not of units no .wants folder links', async () => {
    const ctx = await analyze(
      fixture({
        'lib/systemd/system/telnetd.service': '[Unit]\nDescription=Telnet\n[Service]\nExecStart=-/usr/sbin/telnetd -F\n',
        'etc/systemd/system/multi-user.target.wants/telnetd.service': { kind: 'symlink', mode: 0o777, linkTarget: '/lib/systemd/system/telnetd.service' },
        'lib/systemd/system/gdb.service': '[Service]\nExecStart=/usr/bin/gdbserver :2345 /usr/bin/app\n',
      }),
      [telnetEnabledRule, debugServiceRule],
    );
    expect(summary(ctx)).toEqual([
      { name: 'telnet server started at boot (/lib/systemd/system/telnetd.service)', severity: 'high', cwe: 'CWE-1188', evidence: ['/lib/systemd/system/telnetd.service:4: ExecStart=-/usr/sbin/telnetd -F'] },
    ]);
  });

  it('does not report telnetd that is only killed, echoed, commented out or shipped but never started', async () => {
    const ctx = await analyze(
      fixture({
        'usr/sbin/telnetd': '\x7fELF\0\0\0 telnetd -l /bin/sh',
        'etc/init.d/rcS': '#!/bin/sh\nkillall telnetd\necho "telnetd disabled"\n#telnetd &\n',
        'etc/inittab': '::respawn:/sbin/getty -L ttyS0 115200 vt100\n',
        'usr/share/doc/busybox/telnetd.txt': 'Run telnetd -l /bin/sh for a shell\n',
      }),
      [telnetEnabledRule],
    );
    expect(ctx.findings).toEqual([]);
  });
});

describe('telnetd-builtin-account', () => {
  it('reports the account on telnetd\'s command line with its password read from a file of the image, never the password', async () => {
    const ctx = await analyze(
      fixture({
        'etc/init0.d/S80telnetd.sh': '#!/bin/sh\nimage_sign=`cat /etc/config/image_sign`\ntelnetd -l /usr/sbin/login -u Alphanetworks:$image_sign -i br0 &\n',
        'etc/config/image_sign': 'wrgn80_vendor_model\n',
        'etc/init.d/S81other.sh': '#!/bin/sh\ntelnetd -u debug:s3cr3tpw &\n',
      }),
      [telnetdBuiltinAccountRule],
    );
    expect(summary(ctx)).toEqual([
      {
        name: 'telnetd with a built-in account "Alphanetworks" (S80telnetd.sh)',
        severity: 'critical',
        cwe: 'CWE-798',
        evidence: [`/etc/init0.d/S80telnetd.sh:3: telnetd -l /usr/sbin/login -u Alphanetworks:$image_sign -i br0 & — account "Alphanetworks", password from /etc/config/image_sign (read by /etc/init0.d/S80telnetd.sh:2) (${digest('wrgn80_vendor_model')}, 19 characters)`],
      },
      {
        name: 'telnetd with a built-in account "debug" (S81other.sh)',
        severity: 'critical',
        cwe: 'CWE-798',
        evidence: [`/etc/init.d/S81other.sh:2: telnetd -u debug:s3cr3tpw & — account "debug", password from /etc/init.d/S81other.sh:2 (${digest('s3cr3tpw')}, 8 characters)`],
      },
    ]);
    expect(JSON.stringify(ctx.findings.map((f) => f.description))).not.toMatch(/wrgn80_vendor_model|s3cr3tpw/);
  });
});

describe('console-without-login', () => {
  it('reports shells on the console and ttys, getty without login, login -f, and a script that execs a shell', async () => {
    const ctx = await analyze(
      fixture({
        'etc/inittab': [
          '::sysinit:/etc/init.d/rcS',
          '::sysinit:/bin/sh /etc/rc.local',
          'ttyS0::askfirst:-/bin/sh',
          'console::respawn:-/bin/sh',
          'tty2::respawn:/sbin/getty -n -l /bin/sh 38400 tty2',
          'tty3::respawn:/bin/login -f root',
          '::askconsole:/usr/libexec/login.sh',
          '::respawn:/sbin/getty -L ttyS1 115200 vt100',
          '::shutdown:/bin/umount -a -r',
        ].join('\n'),
        'usr/libexec/login.sh': '#!/bin/sh\n\n[ "$(uci -q get system.@system[0].ttylogin)" = 1 ] || exec /bin/ash --login\n\nexec /bin/login\n',
      }),
      [consoleWithoutLoginRule],
    );
    expect(summary(ctx).map((f) => [f.name, f.evidence])).toEqual([
      ['Shell on the ttyS0 without login (/etc/inittab)', ['/etc/inittab:3: ttyS0::askfirst:-/bin/sh']],
      ['Shell on the console without login (/etc/inittab)', ['/etc/inittab:4: console::respawn:-/bin/sh', '/etc/inittab:7: ::askconsole:/usr/libexec/login.sh', '/usr/libexec/login.sh:3: [ "$(uci -q get system.@system[0].ttylogin)" = 1 ] || exec /bin/ash --login']],
      ['Shell on the tty2 without login (/etc/inittab)', ['/etc/inittab:5: tty2::respawn:/sbin/getty -n -l /bin/sh 38400 tty2']],
      ['Shell on the tty3 without login (/etc/inittab)', ['/etc/inittab:6: tty3::respawn:/bin/login -f root']],
    ]);
    expect(ctx.findings.every((f) => f.severity === 'medium' && f.identifiers[0]!.cwe === 'CWE-306')).toBe(true);
  });

  it('does not report a console with a login, or a login script that only runs login', async () => {
    const ctx = await analyze(
      fixture({
        'etc/inittab': '::sysinit:/etc/init.d/rcS\n::askconsole:/usr/libexec/login.sh\nttyS0::respawn:/sbin/getty -L ttyS0 115200 vt100\n',
        'usr/libexec/login.sh': '#!/bin/sh\n# exec /bin/ash --login\nexec /bin/login\n',
      }),
      [consoleWithoutLoginRule],
    );
    expect(ctx.findings).toEqual([]);
  });
});

describe('console-without-login: busybox init without inittab', () => {
  const BUSYBOX = Buffer.concat([Buffer.from('\x7fELF\x01\x01\x01\0', 'latin1'), Buffer.alloc(200), Buffer.from('/etc/init.d/rcS\0-/bin/sh\0\nPlease press Enter to activate this console. \0')]);

  it('reports the built-in askfirst shell when /sbin/init is busybox and there is no /etc/inittab', async () => {
    const ctx = await analyze(
      fixture({ 'bin/busybox': BUSYBOX, 'sbin/init': { kind: 'symlink', mode: 0o777, linkTarget: '../bin/busybox' }, 'etc/init.d/rcS': '#!/bin/sh\n' }),
      [consoleWithoutLoginRule],
    );
    expect(summary(ctx)).toEqual([
      {
        name: 'Shell on the console without login (busybox init defaults, no /etc/inittab)',
        severity: 'medium',
        cwe: 'CWE-306',
        evidence: ['/sbin/init -> ../bin/busybox; no /etc/inittab in this filesystem', '/bin/busybox contains "Please press Enter to activate this console."'],
      },
    ]);
  });

  it('does not report busybox init with an inittab, a busybox without the askfirst prompt, or another init', async () => {
    const withInittab = await analyze(
      fixture({ 'bin/busybox': BUSYBOX, 'sbin/init': { kind: 'symlink', mode: 0o777, linkTarget: '../bin/busybox' }, 'etc/inittab': '::sysinit:/etc/init.d/rcS\n::respawn:/sbin/getty -L ttyS0 115200 vt100\n' }),
      [consoleWithoutLoginRule],
    );
    const noPrompt = await analyze(fixture({ 'bin/busybox': '\x7fELF\x01\0 busybox', 'sbin/init': { kind: 'symlink', mode: 0o777, linkTarget: '../bin/busybox' } }), [consoleWithoutLoginRule]);
    const procd = await analyze(fixture({ 'sbin/init': '\x7fELF\x01\0 procd' }), [consoleWithoutLoginRule]);
    expect([withInittab.findings, noPrompt.findings, procd.findings]).toEqual([[], [], []]);
  });
});

describe('debug-service', () => {
  it('reports gdbserver, adbd, dropbear -B, writable or root-serving tftpd and httpd serving /', async () => {
    const ctx = await analyze(
      fixture({
        'etc/init.d/rcS': [
          '#!/bin/sh',
          'gdbserver :2345 --attach 1 &',
          '/sbin/adbd &',
          'dropbear -p 22 -B',
          'udpsvd -E 0 69 tftpd -c /tmp &',
          'in.tftpd -l -s / &',
          'httpd -p 8080 -h / &',
        ].join('\n'),
      }),
      [debugServiceRule],
    );
    expect(summary(ctx).map((f) => f.name)).toEqual([
      'Debug service started at boot: gdbserver (/etc/init.d/rcS)',
      'Debug service started at boot: adbd (/etc/init.d/rcS)',
      'Debug service started at boot: dropbear -B (/etc/init.d/rcS)',
      'Debug service started at boot: tftpd (/etc/init.d/rcS)',
      'Debug service started at boot: httpd -h / (/etc/init.d/rcS)',
    ]);
    expect(ctx.findings[3]!.occurrences.map((o) => o.evidence)).toEqual(['/etc/init.d/rcS:5: udpsvd -E 0 69 tftpd -c /tmp &', '/etc/init.d/rcS:6: in.tftpd -l -s / &']);
    expect(ctx.findings.every((f) => f.severity === 'high' && f.identifiers[0]!.cwe === 'CWE-1188')).toBe(true);
  });

  it('does not report dropbear without -B, a read-only tftpd serving its own folder, or httpd serving /www', async () => {
    const ctx = await analyze(
      fixture({
        'etc/init.d/dropbear': '#!/bin/sh\nprocd_set_param command /usr/sbin/dropbear -F -P /var/run/dropbear.pid -b /etc/banner\n',
        'etc/init.d/rcS': '#!/bin/sh\nudpsvd -E 0 69 tftpd /srv/tftp &\nhttpd -h /www -p 80\necho gdbserver\n',
      }),
      [debugServiceRule],
    );
    expect(ctx.findings).toEqual([]);
  });
});
