import { describe, expect, it } from 'vitest';
import { buildCpe, cpeValue, parseCpe } from '../../../src/engine/cpe.js';
import { familyCpe, familyOf, upstreamVersion } from '../../../src/engine/inventory/package-families.js';
import { buildPurl, osvEcosystem, parsePurl } from '../../../src/engine/purl.js';

describe('CPE 2.3', () => {
  it('builds formatted strings with 13 fields and escapes reserved characters', () => {
    expect(buildCpe({ vendor: 'busybox', product: 'busybox', version: '1.31.1' })).toBe('cpe:2.3:a:busybox:busybox:1.31.1:*:*:*:*:*:*:*');
    expect(buildCpe({ part: 'o', vendor: 'linux', product: 'linux_kernel', version: '5.4.43' })).toBe('cpe:2.3:o:linux:linux_kernel:5.4.43:*:*:*:*:*:*:*');
    expect(buildCpe({ vendor: 'openbsd', product: 'openssh', version: '8.4', update: 'p1' })).toBe('cpe:2.3:a:openbsd:openssh:8.4:p1:*:*:*:*:*:*');
    expect(cpeValue('Node.js 1:2')).toBe('node.js_1\\:2');
    expect(parseCpe(buildCpe({ vendor: 'a', product: 'b', version: 'x:y' }))).toMatchObject({ part: 'a', vendor: 'a', product: 'b', version: 'x\\:y', other: '*' });
    expect(parseCpe('cpe:2.3:a:b')).toBeUndefined();
  });

  it('refuses a wildcard or empty vendor or product', () => {
    expect(() => buildCpe({ vendor: '*', product: 'busybox' })).toThrow(/concrete vendor/);
    expect(() => buildCpe({ vendor: '', product: 'x' })).toThrow();
    expect(() => buildCpe({ vendor: 'x', product: '*' })).toThrow();
  });
});

describe('purl', () => {
  it('builds ecosystem purls with sorted, encoded qualifiers', () => {
    expect(buildPurl({ type: 'openwrt', name: 'busybox', version: '1.31.1-1', qualifiers: { arch: 'mipsel_24kc' } })).toBe('pkg:openwrt/busybox@1.31.1-1?arch=mipsel_24kc');
    expect(buildPurl({ type: 'deb', namespace: 'debian', name: 'libc6', version: '2.31-13+deb11u5', qualifiers: { distro: 'bullseye', arch: 'amd64' } })).toBe(
      'pkg:deb/debian/libc6@2.31-13%2Bdeb11u5?arch=amd64&distro=bullseye',
    );
    expect(buildPurl({ type: 'generic', name: 'ncat', version: '6.49BETA1' })).toBe('pkg:generic/ncat@6.49BETA1');
    expect(buildPurl({ type: 'deb', name: 'x', version: '1:2.0' })).toBe('pkg:deb/x@1:2.0');
    expect(buildPurl({ type: 'generic', name: 'a b/c' })).toBe('pkg:generic/a%20b%2Fc');
    expect(() => buildPurl({ type: 'Bad Type', name: 'x' })).toThrow();
  });

  it('parses what it builds, and the same purl written with an unencoded +, into the same parts', () => {
    const built = buildPurl({ type: 'deb', namespace: 'debian', name: 'libc6', version: '2.31-13+deb11u5', qualifiers: { arch: 'amd64' } });
    const expected = { type: 'deb', namespace: 'debian', name: 'libc6', version: '2.31-13+deb11u5', qualifiers: { arch: 'amd64' } };
    expect(parsePurl(built)).toEqual(expected);
    expect(parsePurl('pkg:deb/debian/libc6@2.31-13+deb11u5?arch=amd64')).toEqual(expected);
    expect(osvEcosystem(parsePurl(built)!)).toBe('Debian');
    expect(parsePurl('pkg:npm/%40angular/core@1.0')).toMatchObject({ namespace: '@angular', name: 'core', version: '1.0' });
    expect(parsePurl('busybox 1.31.1')).toBeUndefined();
    expect(parsePurl('pkg:deb')).toBeUndefined();
  });
});

describe('package families', () => {
  it('maps packaging names onto signature families and reduces versions to the upstream release', () => {
    expect(familyOf('libopenssl1.1')?.id).toBe('openssl');
    expect(familyOf('zlib1g')?.id).toBe('zlib');
    expect(familyOf('libubox20191228')?.id).toBe('libubox');
    expect(familyOf('kmod-ppp')).toBeUndefined();
    expect(familyOf('my-vendor-daemon')).toBeUndefined();
    expect(upstreamVersion('2019.78-5')).toBe('2019.78');
    expect(upstreamVersion('1:2.31-0ubuntu9')).toBe('2.31');
    expect(upstreamVersion('1.31.1-r9')).toBe('1.31.1');
    expect(upstreamVersion('5.4.43-1-8b3aaa48ce5dfb66263bde9605e79a76')).toBe('5.4.43');
    expect(upstreamVersion('2.4.8.git-2020-05-25-2')).toBe('2.4.8');
    expect(upstreamVersion('1.1.1g-1')).toBe('1.1.1g');
    expect(upstreamVersion('2020-05-07-f2166a89-1')).toBeUndefined();
    expect(familyCpe(familyOf('dropbear'), '2019.78')).toBe('cpe:2.3:a:dropbear_ssh_project:dropbear_ssh:2019.78:*:*:*:*:*:*:*');
    expect(familyCpe(familyOf('ubus'), '2020')).toBeUndefined();
  });
});
