// The requirements helper in both modes: outside CI a missing command, system file or shared file skips with a
// NOTICE; under CI=true it throws, naming what is missing and the Debian package (or ../shared) that provides it.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEBIAN_PACKAGES, commandInstalled, debianPackageOf, needCommands, needSharedFile, needSystemFile, underCI } from './requirements.js';
import { haveShared } from './shared.js';

const work = mkdtempSync(join(tmpdir(), 'firmscope-requirements-'));
const emptyDir = mkdtempSync(join(work, 'empty-'));
const fakeBin = mkdtempSync(join(work, 'bin-'));
// A stand-in `lzop` (lzop lives in /usr/bin, never in the sbin folders the lookup also searches).
writeFileSync(join(fakeBin, 'lzop'), '#!/bin/sh\n');
chmodSync(join(fakeBin, 'lzop'), 0o755);
afterAll(() => rmSync(work, { recursive: true, force: true }));

let warn: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.unstubAllEnvs();
  warn.mockRestore();
});

it('names a Debian package listed in .ci/apt-packages for every command a test may declare', () => {
  const listed = readFileSync(resolve(fileURLToPath(import.meta.url), '..', '..', '..', '.ci', 'apt-packages'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  expect(Object.entries(DEBIAN_PACKAGES).filter(([, pkg]) => !listed.includes(pkg))).toEqual([]);
});

it('reads CI=true and CI=1 as CI, anything else as a local run', () => {
  for (const [value, ci] of [['true', true], ['1', true], ['false', false], ['', false]] as const) {
    vi.stubEnv('CI', value);
    expect(underCI()).toBe(ci);
  }
});

it('refuses a command without a known Debian package, in both modes', () => {
  for (const ci of ['false', 'true']) {
    vi.stubEnv('CI', ci);
    expect(() => needCommands(['no-such-tool'], 'the x tests')).toThrow(/add the Debian package of no-such-tool to DEBIAN_PACKAGES/);
  }
  expect(debianPackageOf('mkfs.cramfs')).toBe('util-linux');
});

it('finds a command on PATH only when it is an executable there', () => {
  vi.stubEnv('PATH', fakeBin);
  expect(commandInstalled('lzop')).toBe(true);
  vi.stubEnv('PATH', emptyDir);
  expect(commandInstalled('lzop')).toBe(false);
});

describe('outside CI', () => {
  beforeEach(() => {
    vi.stubEnv('CI', '');
  });

  it('runs the tests when the commands are installed, silently', () => {
    vi.stubEnv('PATH', fakeBin);
    expect(needCommands(['lzop'], 'the lzop tests')).toBe(true);
    expect(warn).not.toHaveBeenCalled();
  });

  it('skips with a NOTICE naming the missing command and its package', () => {
    vi.stubEnv('PATH', emptyDir);
    expect(needCommands(['lzop'], 'the lzop tests')).toBe(false);
    expect(warn).toHaveBeenCalledWith('NOTICE: lzop is not installed (Debian package lzop, .ci/apt-packages): the lzop tests are skipped');
  });

  it('skips with a NOTICE when a system file or a shared file is absent', () => {
    expect(needSystemFile([join(emptyDir, 'libx.so.3')], 'libx3', 'the libx tests')).toBeUndefined();
    expect(needSharedFile(join(emptyDir, 'gone.bin'), '../shared/corpus/gone.bin', 'the gone tests')).toBe(false);
    expect(haveShared('corpus', 'no-such-image.bin')).toBe(false);
    expect(warn.mock.calls.map((call: unknown[]) => call[0])).toEqual([
      `NOTICE: ${join(emptyDir, 'libx.so.3')} is absent (Debian package libx3, .ci/apt-packages): the libx tests are skipped`,
      `NOTICE: ../shared/corpus/gone.bin is absent (${join(emptyDir, 'gone.bin')}; CI copies shared/ beside the clone): the gone tests are skipped`,
      expect.stringMatching(/^NOTICE: \.\.\/shared\/corpus\/no-such-image\.bin is absent .*: the tests that need it are skipped$/),
    ]);
  });
});

describe('under CI=true', () => {
  beforeEach(() => {
    vi.stubEnv('CI', 'true');
  });

  it('runs the tests when everything is there', () => {
    vi.stubEnv('PATH', fakeBin);
    expect(needCommands(['lzop'], 'the lzop tests')).toBe(true);
    const file = join(fakeBin, 'lzop');
    expect(needSystemFile([join(emptyDir, 'absent'), file], 'lzop', 'the lzop tests')).toBe(file);
    expect(needSharedFile(file, '../shared/x', 'the x tests')).toBe(true);
    expect(warn).not.toHaveBeenCalled();
  });

  it('fails, naming every missing command and its Debian package', () => {
    vi.stubEnv('PATH', emptyDir);
    expect(() => needCommands(['lzop', 'clang'], 'the lzop tests')).toThrow(
      'CI=true requires the lzop tests to run, but lzop is not installed (Debian package lzop, .ci/apt-packages); '
        + 'clang is not installed (Debian package clang, .ci/apt-packages)',
    );
    expect(warn).not.toHaveBeenCalled();
  });

  it('fails when a system file or a file of ../shared is absent', () => {
    expect(() => needSystemFile([join(emptyDir, 'libx.so.3')], 'libx3', 'the libx tests')).toThrow(/requires the libx tests to run, but .*libx\.so\.3 is absent \(Debian package libx3/);
    expect(() => haveShared('corpus', 'no-such-image.bin')).toThrow(/requires the tests that need it to run, but \.\.\/shared\/corpus\/no-such-image\.bin is absent .*CI copies shared\/ beside the clone/);
  });
});
