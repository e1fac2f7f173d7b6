import { describe, expect, it } from 'vitest';
import { genericScheme, inRange, tokenize } from '../../../src/engine/vulns/version.js';
import { dpkgScheme } from '../../../src/engine/vulns/version-dpkg.js';
import { rpmScheme } from '../../../src/engine/vulns/version-rpm.js';

const sign = (n: number | undefined) => (n === undefined ? undefined : Math.sign(n) || 0);

describe('generic (firmware) version scheme', () => {
  it.each([
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
  ])('%s vs %s → %i', (a, b, expected) => {
    expect(sign(genericScheme.compare(a, b))).toBe(expected);
    expect(sign(genericScheme.compare(b, a))).toBe(-expected || 0);
  });

  it('refuses strings that are not versions', () => {
    expect(tokenize('unknown')).toBeUndefined();
    expect(genericScheme.compare('unknown', '1.0')).toBeUndefined();
    expect(genericScheme.compare('', '1.0')).toBeUndefined();
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
  ] as const)('%s in %j → %s', (v, range, expected) => {
    expect(inRange(genericScheme, v, range)).toBe(expected);
  });

  it('is undefined, not false or true, when the version cannot be compared', () => {
    expect(inRange(genericScheme, 'custom', { endExcluding: '1.2' })).toBeUndefined();
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
