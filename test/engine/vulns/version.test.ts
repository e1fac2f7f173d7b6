import { describe, expect, it } from 'vitest';
import { genericScheme, inRange, tokenize } from '../../../src/engine/vulns/version.js';
import { versionKey } from '../../../src/engine/vulns/version-key.js';
import { dpkgScheme } from '../../../src/engine/vulns/version-dpkg.js';
import { rpmScheme } from '../../../src/engine/vulns/version-rpm.js';

const sign = (n: number | undefined) => (n === undefined ? undefined : Math.sign(n) || 0);

const TABLE: Array<[string, string, number]> = [
  // [a, b, expected sign of compare(a, b)]
  ['1.0.2k', '1.0.2', 1],
  ['1.0.2k', '1.0.2l', -1],
  ['1.0.2za', '1.0.2z', 1],
  ['1.0.2k', '1.0.3', -1],
  ['0.9.8g', '0.9.8', 1],
  ['0.9.8g', '0.9.8h', -1],
  ['1.1.1t', '1.1.1w', -1],
  ['1.1.1t', '3.0.0', -1],
  ['2019.78', '2012.54', 1],
  ['0.52', '2012.54', -1],
  ['0.52', '0.52', 0],
  ['2.6.31', '2.6.9', 1],
  ['2.6.31', '2.6.31.1', -1],
  ['1.0', '1.0.0', 0],
  ['v1.2.3', '1.2.3', 0],
  ['r13499', 'r13500', -1],
  ['r13499', 'r9999', 1],
  ['4.8-1521-g1a2b3c4d', '4.8', 1],
  ['4.8-1521-g1a2b3c4d', '4.9', -1],
  ['4.8-1521-g1a2b3c4d', '4.8-1522-gffffff0', -1],
  ['5.16-rc1', '5.16', -1],
  ['5.16-rc1', '5.15.99', 1],
  ['5.16-rc2', '5.16-rc10', -1],
  ['1.0.0-beta2', '1.0.0-rc1', -1],
  ['1.0.0-alpha', '1.0.0-beta', -1],
  ['7.4p1', '7.4', 1],
  ['7.4p1', '7.5', -1],
  ['1.36.1', '1.33.1', 1],
  ['1.31.1', '1.33.1', -1],
  ['12345678901234567890.1', '12345678901234567890.2', -1],
  // a or b followed by digits after a number is a pre-release (ppp 2.4.2b3 is a beta of 2.4.2) ...
  ['2.4.2b3', '2.4.2', -1],
  ['2.4.2b3', '2.4.1', 1],
  ['2.4.2b3', '2.4.2b4', -1],
  ['2.4.2a1', '2.4.2b1', -1],
  ['2.4.2b3', '2.4.2rc1', -1],
  ['2.4.2-b3', '2.4.2', -1],
  ['2.4.2b3', '2.4.2beta3', 0],
  ['2.4.2pre1', '2.4.2', -1],
  // ... while a lone trailing letter stays a post-release, as in OpenSSL
  ['1.0.2a', '1.0.2', 1],
  ['1.0.2b', '1.0.2', 1],
  ['1.0.2b', '1.0.2b3', 1],
  // a trailing -YYYYMMDD date tag on one side only names the same release (json-c 0.15 is 0.15-20200726)
  ['0.15', '0.15-20200726', 0],
  ['0.14', '0.15-20200726', -1],
  ['0.15.1', '0.15-20200726', 1],
  ['0.15-20200726', '0.15-20200801', -1],
  ['0.13.1-20180305', '0.13.1', 0],
];

describe('generic (firmware) version scheme', () => {
  it.each(TABLE)('%s vs %s → %i', (a, b, expected) => {
    expect(sign(genericScheme.compare(a, b))).toBe(expected);
    expect(sign(genericScheme.compare(b, a))).toBe(-expected || 0);
  });

  it('refuses strings that are not versions', () => {
    expect(tokenize('unknown')).toBeUndefined();
    expect(genericScheme.compare('unknown', '1.0')).toBeUndefined();
    expect(genericScheme.compare('', '1.0')).toBeUndefined();
  });

  it('agrees with the version keys wherever both versions have one, and the new formats have none', () => {
    const versions = [...new Set(TABLE.flatMap(([a, b]) => [a, b]))].filter((v) => versionKey(v) !== undefined);
    expect(versions.length).toBeGreaterThan(15);
    const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
    for (const a of versions) {
      for (const b of versions) expect([a, b, cmp(versionKey(a)!, versionKey(b)!)]).toEqual([a, b, sign(genericScheme.compare(a, b))]);
    }
    for (const v of ['2.4.2b3', '2.4.2-b3', '0.15-20200726', 'r13499', '1.0.2b']) expect(versionKey(v)).toBeUndefined();
  });

  it('does not compare a revision number with a dotted version', () => {
    for (const [a, b] of [['r13499', '1.0'], ['r13499', '13500'], ['r13499', '2.6.31'], ['r1', '0']]) {
      expect(genericScheme.compare(a!, b!)).toBeUndefined();
      expect(genericScheme.compare(b!, a!)).toBeUndefined();
    }
  });
});

describe('ranges', () => {
  it.each([
    ['0.52', { startIncluding: '0.52', endIncluding: '2012.54' }, true],
    ['0.51', { startIncluding: '0.52', endIncluding: '2012.54' }, false],
    ['2012.54', { startIncluding: '0.52', endIncluding: '2012.54' }, true],
    ['2012.55', { startIncluding: '0.52', endIncluding: '2012.54' }, false],
    ['2019.78', { startIncluding: '0.52', endIncluding: '2012.54' }, false],
    ['1.16.0', { startIncluding: '1.16.0', endIncluding: '1.33.1' }, true],
    ['1.15.3', { startIncluding: '1.16.0', endIncluding: '1.33.1' }, false],
    ['1.34.0', { startIncluding: '1.16.0', endIncluding: '1.33.1' }, false],
    ['1.0.2k', { startExcluding: '1.0.2', endExcluding: '1.0.2l' }, true],
    ['1.0.2', { startExcluding: '1.0.2', endExcluding: '1.0.2l' }, false],
    ['1.0.2l', { startExcluding: '1.0.2', endExcluding: '1.0.2l' }, false],
    ['4.9', { endExcluding: '4.9' }, false],
    ['4.8-1521-gabcdef0', { endExcluding: '4.9' }, true],
    ['9.9', {}, true],
    // CVE-2020-8597 (ppp 2.4.2 to 2.4.8)
    ['2.4.2b3', { startIncluding: '2.4.2', endIncluding: '2.4.8' }, false],
    ['2.4.2', { startIncluding: '2.4.2', endIncluding: '2.4.8' }, true],
    // CVE-2020-12762 (json-c before 0.15-20200726)
    ['0.15', { endExcluding: '0.15-20200726' }, false],
    ['0.14', { endExcluding: '0.15-20200726' }, true],
  ] as const)('%s in %j → %s', (v, range, expected) => {
    expect(inRange(genericScheme, v, range)).toBe(expected);
  });

  it('is undefined, not false or true, when the version cannot be compared', () => {
    expect(inRange(genericScheme, 'custom', { endExcluding: '1.2' })).toBeUndefined();
    expect(inRange(genericScheme, 'r13499', { startIncluding: '1.0', endExcluding: '2.0' })).toBeUndefined();
  });
});

describe('dpkg scheme', () => {
  it.each([
    ['1.0-1', '1.0-2', -1],
    ['1.0~rc1-1', '1.0-1', -1],
    ['1:0.9', '2.0', 1],
    ['1.12.0-1~ubuntu16.04.3', '1.12.0-1~ubuntu16.04.3+esm1', -1],
    ['1.2.3', '1.2.3', 0],
    ['1.2a', '1.2+', -1],
    ['1.10', '1.9', 1],
  ])('%s vs %s → %i', (a, b, expected) => {
    expect(sign(dpkgScheme.compare(a, b))).toBe(expected);
  });
});

describe('rpm scheme', () => {
  it.each([
    ['1:11.0.13.0.8-1.el8_4', '1:11.0.12.0.7-0.el8_4', 1],
    ['11.0.13.0.8-1.el8_4', '1:11.0.12.0.7-0.el8_4', -1],
    ['1.0', '1.0a', -1],
    ['1.0~rc1', '1.0', -1],
    ['1.0^git1', '1.0', 1],
    ['1.0^git1', '1.0.1', -1],
    ['2.10', '2.9', 1],
    ['1.0-1', '1.0-1', 0],
  ])('%s vs %s → %i', (a, b, expected) => {
    expect(sign(rpmScheme.compare(a, b))).toBe(expected);
  });
});
