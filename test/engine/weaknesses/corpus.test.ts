// The weakness rules on real images through scan() (unpacker + the weaknesses stage). Expectations were checked
// by hand on the images unpacked by the engine (standard unsquashfs cannot read the TRENDnet vendor LZMA):
//   TRENDnet TEW-733GR: no passwd/shadow/inittab in the image (the D-Link/Alpha Networks code writes /var/passwd
//     at run time from its configuration database). /sbin/init -> ../bin/busybox (1.14.1, built without inittab
//     support; carries "Please press Enter to activate this console."), so init runs its built-in table with
//     `::askfirst:-/bin/sh` on the console. /etc/init0.d/S80telnetd.sh (run by rcS for every S??* script) starts
//     `telnetd -l /usr/sbin/login -u Alphanetworks:$image_sign -i br0` (line 7, image_sign=`cat
//     /etc/config/image_sign` on line 6, a 24-character value) or plain `telnetd` (line 9) while the device is
//     at its factory configuration. /etc/services/INET/inet_ppp4.php hard-codes the NTT FLET'S fallback PPPoE
//     accounts: `$pass = "flets";` (line 270) and `$pass = "guest";` (line 275). No setuid or world-writable file.
//   OpenWrt mir3g (SNAPSHOT r13499): /etc/shadow line 1 `root::0:0:99999:7:::` (empty password, passwd says 'x'
//     and /bin/ash); /etc/inittab `::askconsole:/usr/libexec/login.sh` (line 3), whose line 3 execs
//     `/bin/ash --login` unless system.ttylogin is 1 (/etc/config/system is absent until first boot); no telnetd
//     (dropbear without -B); /tmp is 1777 (sticky, not reported); no setuid file.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scan } from '../../../src/engine/scan.js';
import type { ScanResult } from '../../../src/engine/types.js';
import { weaknessesAnalyzer } from '../../../src/engine/weaknesses/weaknesses.analyzer.js';
import { corpus, haveShared } from '../../support/shared.js';

const work: string[] = [];
afterAll(() => work.forEach((w) => rmSync(w, { recursive: true, force: true })));

async function scanned(name: string): Promise<{ result: ScanResult; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'weak-corpus-'));
  work.push(dir);
  return { result: await scan(corpus(name), { workDir: dir, analyzers: [weaknessesAnalyzer] }), dir };
}

const summary = (r: ScanResult) =>
  r.findings.map((f) => ({ rule: f.identifiers[0]!.rule, cwe: f.identifiers[0]!.cwe, severity: f.severity, name: f.name, evidence: f.occurrences.map((o) => o.evidence) }));

describe.runIf(haveShared('corpus', 'trendnet-tew733gr-rootfs.squashfs'))('TRENDnet TEW-733GR root filesystem', () => {
  it('reports the Alpha Networks telnet account, telnet at boot, the busybox console shell and the FLET\'S PPPoE passwords, and nothing else', async () => {
    const { result, dir } = await scanned('trendnet-tew733gr-rootfs.squashfs');
    const imageSign = result.files.find((f) => f.fsPath === '/etc/config/image_sign')!;
    const password = readFileSync(join(dir, imageSign.path), 'utf8').trim();
    const digest = (s: string) => `sha256:${createHash('sha256').update(s).digest('hex').slice(0, 8)}, ${s.length} characters`;
    expect(summary(result)).toEqual([
      {
        rule: 'weakness/telnetd-builtin-account',
        cwe: 'CWE-798',
        severity: 'critical',
        name: 'telnetd with a built-in account "Alphanetworks" (S80telnetd.sh)',
        evidence: [`/etc/init0.d/S80telnetd.sh:7: telnetd -l /usr/sbin/login -u Alphanetworks:$image_sign -i br0 & — account "Alphanetworks", password from /etc/config/image_sign (read by /etc/init0.d/S80telnetd.sh:6) (${digest(password)})`],
      },
      {
        rule: 'weakness/password-assignment',
        cwe: 'CWE-259',
        // "guest" is one of the published default passwords.
        severity: 'high',
        name: 'Hard-coded password "pass" in inet_ppp4.php',
        evidence: [`/etc/services/INET/inet_ppp4.php:270: pass = <${digest('flets')}>`, '/etc/services/INET/inet_ppp4.php:275: pass = "guest" (a default password)'],
      },
      {
        rule: 'weakness/telnet-enabled',
        cwe: 'CWE-1188',
        severity: 'high',
        name: 'telnet server started at boot (/etc/init0.d/S80telnetd.sh)',
        evidence: ['/etc/init0.d/S80telnetd.sh:7: telnetd -l /usr/sbin/login -u Alphanetworks:$image_sign -i br0 &', '/etc/init0.d/S80telnetd.sh:9: telnetd &'],
      },
      {
        rule: 'weakness/console-without-login',
        cwe: 'CWE-306',
        severity: 'medium',
        name: 'Shell on the console without login (busybox init defaults, no /etc/inittab)',
        evidence: ['/sbin/init -> ../bin/busybox; no /etc/inittab in this filesystem', '/bin/busybox contains "Please press Enter to activate this console."'],
      },
    ]);
    expect(password).toHaveLength(24);
    expect(JSON.stringify(result.findings)).not.toContain(password);
    expect(result.problems.filter((p) => p.source.startsWith('weakness/'))).toEqual([]);
  });
});

const OPENWRT = 'openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin';

describe.runIf(haveShared('corpus', OPENWRT))('OpenWrt mir3g sysupgrade image', () => {
  it('reports root\'s empty password and the console shell of login.sh, and nothing else', async () => {
    const { result } = await scanned(OPENWRT);
    expect(summary(result)).toEqual([
      { rule: 'weakness/empty-password', cwe: 'CWE-258', severity: 'high', name: 'Account "root" has an empty password (/etc/shadow)', evidence: ['/etc/shadow:1: root:<empty password>'] },
      {
        rule: 'weakness/console-without-login',
        cwe: 'CWE-306',
        severity: 'medium',
        name: 'Shell on the console without login (/etc/inittab)',
        evidence: ['/etc/inittab:3: ::askconsole:/usr/libexec/login.sh', '/usr/libexec/login.sh:3: [ "$(uci -q get system.@system[0].ttylogin)" = 1 ] || exec /bin/ash --login'],
      },
    ]);
    expect(result.problems.filter((p) => p.source.startsWith('weakness/'))).toEqual([]);
  });
});
