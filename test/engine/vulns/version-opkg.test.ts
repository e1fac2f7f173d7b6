// opkg version order (libopkg/pkg_version.c): epoch, upstream version, revision after the last '-', each by dpkg's
// verrevcmp. For versions dpkg also accepts, dpkg --compare-versions is the reference; OpenWrt's own forms
// (date-hash versions, revisions above 9, upstream parts starting with a letter) are checked directly.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { opkgScheme, parseOpkgVersion } from '../../../src/engine/vulns/version-opkg.js';
import { needCommands } from '../../support/requirements.js';

const sign = (n: number | undefined) => (n === undefined ? undefined : Math.sign(n));

describe('opkg version order', () => {
  it('splits epoch, version and the revision after the last dash', () => {
    expect(parseOpkgVersion('2020-06-03-bb8b1dd7-1')).toEqual({ epoch: 0, version: '2020-06-03-bb8b1dd7', revision: '1' });
    expect(parseOpkgVersion('1:2.4-3')).toEqual({ epoch: 1, version: '2.4', revision: '3' });
    expect(parseOpkgVersion('git-2019.02.15')).toEqual({ epoch: 0, version: 'git', revision: '2019.02.15' });
    expect(parseOpkgVersion('')).toBeUndefined();
  });

  it('orders OpenWrt package versions', () => {
    expect(sign(opkgScheme.compare('2019.78-10', '2019.78-9'))).toBe(1);
    expect(sign(opkgScheme.compare('1.31.1-1', '1.31.1-1'))).toBe(0);
    expect(sign(opkgScheme.compare('2020-06-03-bb8b1dd7-1', '2020-05-25-1a9a2b38-1'))).toBe(1);
    expect(sign(opkgScheme.compare('1.0~rc1-1', '1.0-1'))).toBe(-1);
    expect(sign(opkgScheme.compare('1:1.0-1', '2.0-1'))).toBe(1);
    expect(sign(opkgScheme.compare('1.1.1g-1', '1.1.1k-1'))).toBe(-1);
  });

  it.runIf(needCommands(['dpkg'], 'the opkg/dpkg order comparison'))('agrees with dpkg --compare-versions where both accept the versions', () => {
    const versions = ['1.31.1-1', '1.31.1-2', '1.31.1-10', '2019.78-2', '2019.78-12', '2020.80-1', '1.0~rc1-1', '1.0-1', '1:0.9-1',
      '2.4.1-1a', '2.4.1-1b', '2.4.1+deb1-1', '2020-06-03-bb8b1dd7-1', '2020-05-25-1a9a2b38-1', '1.1.1g-1', '1.1.1k-1', '5.4.43-1'];
    const pairs = versions.flatMap((a) => versions.map((b) => [a, b] as const));
    // one shell runs every comparison: a dpkg started from the test's own (large) process cost ~50 ms apiece
    const quote = (v: string) => `'${v.replaceAll("'", `'\\''`)}'`;
    const script = [
      'cmp() { if dpkg --compare-versions "$1" lt "$2"; then echo -1; elif dpkg --compare-versions "$1" eq "$2"; then echo 0; else echo 1; fi; }',
      ...pairs.map(([a, b]) => `cmp ${quote(a)} ${quote(b)}`),
    ].join('\n');
    const expected = execFileSync('sh', ['-c', script], { encoding: 'utf8' }).trim().split('\n').map(Number);
    expect(expected).toHaveLength(pairs.length);
    pairs.forEach(([a, b], i) => expect([a, b, sign(opkgScheme.compare(a, b))]).toEqual([a, b, expected[i]]));
  });
});
