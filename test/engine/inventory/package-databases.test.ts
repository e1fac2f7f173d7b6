import { afterAll, describe, expect, it } from 'vitest';
import type { AnalysisContext } from '../../../src/engine/analyzer.js';
import { parseApkInstalled } from '../../../src/engine/inventory/apk-installed.identifier.js';
import { dependencyNames, parseStanzas } from '../../../src/engine/inventory/control-file.js';
import { parseReleaseFile } from '../../../src/engine/inventory/os-release.identifier.js';
import { fixtureTrees, inventoryOfDirectory, runInventory, singleFileIndex } from './support.js';

const { tree, cleanup } = fixtureTrees('pkgdb-');
afterAll(cleanup);

const OPKG_STATUS = `Package: busybox
Version: 1.31.1-1
Depends: libc
Status: install user installed
Architecture: mipsel_24kc
License: GPL-2.0
Installed-Time: 1591456069

Package: libc
Version: 1.1.24-2
Status: install hold installed
Architecture: mipsel_24kc

Package: ubus
Version: 2020-02-05-171469e3-1
Depends: libc, libubus20191227
Status: install user installed
Architecture: mipsel_24kc

Package: old-tool
Version: 1.0-1
Status: deinstall user not-installed

Package: broken
Status: install user installed
`;

describe('control stanzas', () => {
  it('parses fields, continuation lines and dependency lists', () => {
    const [a] = parseStanzas('Package: x\nDescription: line one\n line two\nDepends: libc (>= 1.2), a | b, c:any\n');
    expect(a.get('description')).toBe('line one\nline two');
    expect(dependencyNames(a.get('depends'))).toEqual(['libc', 'a', 'c']);
    expect(parseStanzas('\n\n')).toEqual([]);
  });
});

describe('opkg status', () => {
  it('reports installed packages with openwrt purls, family CPEs, files from .list and dependencies', async () => {
    const root = tree({
      'usr/lib/opkg/status': OPKG_STATUS,
      'usr/lib/opkg/info/busybox.list': '/bin/busybox\n/bin/sh\n',
      'usr/lib/opkg/info/busybox.control': 'Package: busybox\nVersion: 1.31.1-1\nArchitecture: mipsel_24kc\n',
      'bin/busybox': Buffer.from('\x7fELF-not-really\0BusyBox v1.31.1 ()\0', 'latin1'),
      'etc/openwrt_release': "DISTRIB_ID='OpenWrt'\nDISTRIB_RELEASE='19.07.3'\nDISTRIB_REVISION='r11063-85e04e9f46'\n",
    });
    const { components, problems } = await inventoryOfDirectory(root);
    const names = components.map((c) => c.ref).sort();
    expect(names).toEqual(['busybox@1.31.1-1', 'libc@1.1.24-2', 'openwrt@19.07.3-r11063-85e04e9f46', 'ubus@2020-02-05-171469e3-1']);
    const busybox = components.find((c) => c.name === 'busybox')!;
    expect(busybox).toMatchObject({
      purl: 'pkg:openwrt/busybox@1.31.1-1?arch=mipsel_24kc',
      cpe: 'cpe:2.3:a:busybox:busybox:1.31.1:*:*:*:*:*:*:*',
      licenses: ['GPL-2.0'],
      dependsOn: ['libc@1.1.24-2'],
    });
    // The binary the database lists joins the package: it is the primary (hashed) file.
    expect(busybox.paths[0]).toBe('bin/busybox');
    expect(busybox.hashes?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(busybox.foundBy.sort()).toEqual(['opkg-status', 'version-signatures']);
    expect(busybox.evidence.map((e) => e.method).sort()).toEqual(['opkg-control', 'opkg-status', 'version-signature']);
    expect(components.find((c) => c.name === 'libc')!.cpe).toBe('cpe:2.3:a:musl-libc:musl:1.1.24:*:*:*:*:*:*:*');
    // Date snapshots have no release number: no CPE rather than a guess.
    expect(components.find((c) => c.name === 'ubus')!.cpe).toBeUndefined();
    expect(components.find((c) => c.name === 'openwrt')).toMatchObject({ type: 'operating-system', cpe: 'cpe:2.3:o:openwrt:openwrt:19.07.3:*:*:*:*:*:*:*' });
    expect(problems.some((p) => p.source === 'opkg-status' && /without Package or Version/.test(p.message))).toBe(true);
  });

  it('records a reason for an unparsable database and still runs', async () => {
    const root = tree({ 'usr/lib/opkg/status': '\u0000\u0001 garbage without fields' });
    const { components, problems } = await inventoryOfDirectory(root);
    expect(components).toEqual([]);
    expect(problems).toContainEqual(expect.objectContaining({ source: 'opkg-status', kind: 'skipped' }));
  });
});

describe('dpkg status', () => {
  it('reports installed packages as pkg:deb with the distribution namespace and skips removed ones', async () => {
    const root = tree({
      'var/lib/dpkg/status': `Package: libc6
Status: install ok installed
Architecture: armhf
Source: glibc
Version: 2.31-13+deb11u5
Depends: libgcc-s1

Package: zlib1g
Status: install ok installed
Architecture: armhf
Source: zlib
Version: 1:1.2.11.dfsg-2+deb11u2
Depends: libc6 (>= 2.4)

Package: gone
Status: deinstall ok config-files
Version: 1.0
`,
      'var/lib/dpkg/info/zlib1g:armhf.list': '/lib/arm-linux-gnueabihf/libz.so.1.2.11\n',
      'lib/arm-linux-gnueabihf/libz.so.1.2.11': Buffer.from('\0 inflate 1.2.11 Copyright 1995-2017 Mark Adler \0\x7f', 'latin1'),
      'etc/os-release': 'ID=debian\nVERSION_ID="11"\nPRETTY_NAME="Debian GNU/Linux 11 (bullseye)"\n',
    });
    const { components } = await inventoryOfDirectory(root);
    expect(components.map((c) => c.ref).sort()).toEqual(['debian@11', 'libc6@2.31-13+deb11u5', 'zlib1g@1:1.2.11.dfsg-2+deb11u2']);
    const zlib = components.find((c) => c.name === 'zlib1g')!;
    expect(zlib.purl).toBe('pkg:deb/debian/zlib1g@1:1.2.11.dfsg-2%2Bdeb11u2?arch=armhf');
    expect(zlib.cpe).toBe('cpe:2.3:a:zlib:zlib:1.2.11:*:*:*:*:*:*:*');
    expect(zlib.paths[0]).toBe('lib/arm-linux-gnueabihf/libz.so.1.2.11');
    expect(zlib.dependsOn).toEqual(['libc6@2.31-13+deb11u5']);
    expect(components.find((c) => c.name === 'libc6')!.cpe).toBe('cpe:2.3:a:gnu:glibc:2.31:*:*:*:*:*:*:*');
    expect(components.find((c) => c.name === 'debian')!.cpe).toBe('cpe:2.3:o:debian:debian_linux:11:*:*:*:*:*:*:*');
  });
});

describe('apk installed', () => {
  const DB = `C:Q1abc=
P:musl
V:1.1.24-r9
A:x86_64
L:MIT
o:musl
p:so:libc.musl-x86_64.so.1=1
F:lib
R:ld-musl-x86_64.so.1
R:libc.musl-x86_64.so.1

P:busybox
V:1.31.1-r19
A:x86_64
L:GPL-2.0-only
D:so:libc.musl-x86_64.so.1
F:bin
R:busybox

V:9.9
`;

  it('parses records, files, provides and dependencies', () => {
    const { records, malformed } = parseApkInstalled(DB);
    expect(malformed).toBe(1);
    expect(records.map((r) => `${r.name}@${r.version}`)).toEqual(['musl@1.1.24-r9', 'busybox@1.31.1-r19']);
    expect(records[0].files).toEqual(['/lib/ld-musl-x86_64.so.1', '/lib/libc.musl-x86_64.so.1']);
    expect(records[0].provides).toEqual(['libc.musl-x86_64.so.1']);
    expect(records[1].depends).toEqual(['libc.musl-x86_64.so.1']);
  });

  it('reports pkg:apk components with dependencies resolved through provides', async () => {
    const root = tree({ 'lib/apk/db/installed': DB, 'etc/os-release': 'ID=alpine\nVERSION_ID=3.12.0\n' });
    const { components, problems } = await inventoryOfDirectory(root);
    const busybox = components.find((c) => c.name === 'busybox')!;
    expect(busybox.purl).toBe('pkg:apk/alpine/busybox@1.31.1-r19?arch=x86_64');
    expect(busybox.dependsOn).toEqual(['musl@1.1.24-r9']);
    expect(components.find((c) => c.name === 'musl')!.cpe).toBe('cpe:2.3:a:musl-libc:musl:1.1.24:*:*:*:*:*:*:*');
    expect(components.find((c) => c.name === 'alpine')!.cpe).toBe('cpe:2.3:o:alpinelinux:alpine_linux:3.12.0:*:*:*:*:*:*:*');
    expect(problems.some((p) => p.source === 'apk-installed' && /without P: or V:/.test(p.message))).toBe(true);
  });
});

describe('release files', () => {
  it('reads os-release, openwrt_release, lsb-release, alpine-release and debian_version', () => {
    expect(parseReleaseFile('/usr/lib/os-release', 'NAME="OpenWrt"\nID="openwrt"\nVERSION_ID="snapshot"\nBUILD_ID="r13499-7b4877c204"\n')).toMatchObject({ id: 'openwrt', version: 'snapshot', build: 'r13499-7b4877c204' });
    expect(parseReleaseFile('/etc/openwrt_release', "DISTRIB_ID='OpenWrt'\nDISTRIB_RELEASE='SNAPSHOT'\n")).toMatchObject({ id: 'openwrt', version: 'SNAPSHOT' });
    expect(parseReleaseFile('/etc/lsb-release', 'DISTRIB_ID=Ubuntu\nDISTRIB_RELEASE=20.04\n')).toMatchObject({ id: 'ubuntu', version: '20.04' });
    expect(parseReleaseFile('/etc/alpine-release', '3.12.0\n')).toMatchObject({ id: 'alpine', version: '3.12.0' });
    expect(parseReleaseFile('/etc/debian_version', 'bullseye/sid\n')).toBeUndefined();
    expect(parseReleaseFile('/etc/os-release', '# nothing\n')).toBeUndefined();
  });

  it('gives an OS without a numeric release no CPE', async () => {
    const root = tree({ 'etc/openwrt_release': "DISTRIB_ID='OpenWrt'\nDISTRIB_RELEASE='SNAPSHOT'\nDISTRIB_REVISION='r13499-7b4877c204'\n" });
    const { components } = await inventoryOfDirectory(root);
    expect(components).toHaveLength(1);
    expect(components[0]).toMatchObject({ name: 'openwrt', version: 'SNAPSHOT r13499-7b4877c204', type: 'operating-system' });
    expect(components[0].cpe).toBeUndefined();
    expect(components[0].evidence[0].match).toContain('DISTRIB_REVISION=r13499-7b4877c204');
  });
});

describe('OpenWrt fwtool metadata', () => {
  function image(json: string, type = 1): Buffer {
    const body = Buffer.concat([Buffer.alloc(8), Buffer.from(json)]);
    const trailer = Buffer.alloc(16);
    trailer.write('FWx0', 0, 'latin1');
    trailer[8] = type;
    trailer.writeUInt32BE(body.length + 16, 12);
    return Buffer.concat([Buffer.alloc(1024, 0xff), body, trailer]);
  }

  async function run(data: Buffer): Promise<AnalysisContext> {
    return runInventory(singleFileIndex(tree({ 'fw.bin': data }), 'fw.bin', data.length));
  }

  it('reads dist, version and revision from the trailer chain of the image', async () => {
    const { components } = await run(image('{ "metadata_version": "1.0", "version": { "dist": "OpenWrt", "version": "19.07.3", "revision": "r11063-85e04e9f46", "target": "ramips/mt7621" } }\n'));
    expect(components).toHaveLength(1);
    expect(components[0]).toMatchObject({ name: 'openwrt', version: '19.07.3 r11063-85e04e9f46', cpe: 'cpe:2.3:o:openwrt:openwrt:19.07.3:*:*:*:*:*:*:*' });
    expect(components[0].evidence[0]).toMatchObject({ method: 'openwrt-fwtool-metadata', match: expect.stringContaining('revision=r11063-85e04e9f46') });
  });

  it('ignores images without a trailer and notes broken metadata', async () => {
    expect((await run(Buffer.alloc(2048, 0xff))).components).toEqual([]);
    const bad = await run(image('{ not json'));
    expect(bad.components).toEqual([]);
    expect(bad.problems).toContainEqual(expect.objectContaining({ source: 'openwrt-metadata', kind: 'warning' }));
    const truncated = image('{}');
    truncated.writeUInt32BE(1 << 30, truncated.length - 4);
    expect((await run(truncated)).components).toEqual([]);
  });
});
