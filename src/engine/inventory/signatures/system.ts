// Base system: C libraries, compiler runtime, BusyBox, shells and terminal libraries, storage tools, and the
// OpenWrt core (its git-snapshot packages have no release numbers in their binaries: presence only).
import type { VersionSignature } from '../signature.js';
import { adjacent, banner, standalone } from './helpers.js';

export const systemSignatures: VersionSignature[] = [
  {
    id: 'busybox',
    name: 'busybox',
    type: 'application',
    cpe: { vendor: 'busybox', product: 'busybox' },
    purl: { name: 'busybox' },
    // BB_BANNER: 'BusyBox v1.31.0 (2019-06-10 15:54:51 CEST)', OpenWrt: 'BusyBox v1.31.1 ()'
    patterns: [banner('BusyBox v', /BusyBox v(\d+\.\d+\.\d+)(?:\.git|-[\w.]+)? \([^\0)]*\)/, 0.95)],
  },
  {
    id: 'glibc',
    name: 'glibc',
    type: 'library',
    cpe: { vendor: 'gnu', product: 'glibc' },
    purl: { name: 'glibc' },
    // 'GNU C Library (Ubuntu GLIBC 2.31-0ubuntu9) stable release version 2.31.'
    patterns: [banner('GNU C Library', /GNU C Library [^\0]{0,80}?release version (2\.\d+(?:\.\d+)?)[,.]/, 0.95)],
  },
  {
    id: 'uclibc-ng',
    name: 'uclibc-ng',
    type: 'library',
    cpe: { vendor: 'uclibc-ng_project', product: 'uclibc-ng' },
    purl: { name: 'uclibc-ng' },
    patterns: [banner('uClibc-ng ', /uClibc-ng (1\.\d+\.\d+)/)],
  },
  {
    id: 'uclibc',
    name: 'uclibc',
    type: 'library',
    cpe: { vendor: 'uclibc', product: 'uclibc' },
    purl: { name: 'uclibc' },
    excludedBy: ['uclibc-ng'],
    patterns: [banner('uClibc ', /\0uClibc (0\.9\.\d+(?:\.\d+)?)\0/)],
  },
  {
    id: 'musl',
    name: 'musl',
    type: 'library',
    cpe: { vendor: 'musl-libc', product: 'musl' },
    purl: { name: 'musl' },
    files: ['libc.so', 'ld-musl-*.so.1', 'libc.musl-*.so.1'],
    patterns: [adjacent('Dynamic linker failed to allocate memory for error message', '[01]\\.\\d+\\.\\d+', 0.8, true)],
    standalone: [standalone('musl libc (', /^[01]\.\d+\.\d+$/, 0.7)],
  },
  {
    id: 'libgcc',
    name: 'libgcc',
    type: 'library',
    cpe: { vendor: 'gnu', product: 'gcc' },
    purl: { name: 'libgcc' },
    files: ['libgcc_s.so*', 'libstdc++.so*', 'libgcc_s_*.dll', 'libstdc++-*.dll'],
    // The .comment of the runtime library itself names the GCC release it belongs to.
    patterns: [banner('GCC: (', /GCC: \([^\0)]*\) (\d+\.\d+\.\d+)\0/, 0.7, true)],
  },
  {
    id: 'ncurses',
    name: 'ncurses',
    type: 'library',
    cpe: { vendor: 'gnu', product: 'ncurses' },
    purl: { name: 'ncurses' },
    patterns: [banner('ncurses ', /\0ncurses (\d+\.\d+)(?:\.\d{8})?\0/)],
  },
  {
    id: 'readline',
    name: 'readline',
    type: 'library',
    cpe: { vendor: 'gnu', product: 'readline' },
    purl: { name: 'readline' },
    files: ['libreadline.so*'],
    patterns: [],
    standalone: [standalone('rl_', /^[5-8]\.\d+$/)],
  },
  {
    id: 'bash',
    name: 'bash',
    type: 'application',
    cpe: { vendor: 'gnu', product: 'bash' },
    purl: { name: 'bash' },
    // sccs_version: '@(#)Bash version 5.0.17(1) release GNU'
    patterns: [banner('Bash version ', /@\(#\)Bash version (\d+\.\d+(?:\.\d+)?)\(\d+\)-?\w* release/, 0.95)],
  },
  {
    id: 'e2fsprogs',
    name: 'e2fsprogs',
    type: 'application',
    cpe: { vendor: 'e2fsprogs_project', product: 'e2fsprogs' },
    purl: { name: 'e2fsprogs' },
    files: ['mke2fs', 'mkfs.ext*', 'e2fsck', 'fsck.ext*', 'tune2fs', 'resize2fs', 'debugfs', 'libext2fs.so*'],
    // E2FSPROGS_VERSION next to E2FSPROGS_DATE: '1.45.6\0...20-Mar-2020'
    patterns: [banner('-20', /\0(1\.\d+\.\d+)\0{1,8}\d{1,2}-[A-Z][a-z]{2}-20\d\d\0/, 0.8, true)],
    // Distribution builds place E2FSPROGS_VERSION apart from its date.
    standalone: [standalone('E2FSPROGS_', /^1\.4\d\.\d+$/)],
  },
  {
    id: 'mtd-utils',
    name: 'mtd-utils',
    type: 'application',
    purl: { name: 'mtd-utils' },
    files: ['ubi*', 'flash_*', 'nand*', 'mtd_*', 'mkfs.ubifs', 'mkfs.jffs2'],
    patterns: [adjacent('%s (mtd-utils) %s', '\\d+\\.\\d+\\.\\d+', 0.8, true)],
    standalone: [standalone('(mtd-utils)', /^[12]\.\d+\.\d+$/)],
  },
  {
    id: 'json-c',
    name: 'json-c',
    type: 'library',
    cpe: { vendor: 'json-c', product: 'json-c' },
    purl: { name: 'json-c' },
    files: ['libjson-c.so*', 'libjson.so*'],
    patterns: [],
    standalone: [standalone('json_object', /^0\.\d+(?:\.\d+)?$/)],
  },
  ...['libubox', 'ubus', 'procd', 'netifd', 'opkg', 'libnl-tiny'].map(
    (id): VersionSignature => ({
      id,
      name: id,
      type: id.startsWith('lib') ? 'library' : 'application',
      purl: { name: id, namespace: 'openwrt' },
      files: {
        libubox: ['libubox.so*'],
        ubus: ['ubus', 'ubusd', 'libubus.so*'],
        procd: ['procd'],
        netifd: ['netifd'],
        opkg: ['opkg', 'libopkg.so*'],
        'libnl-tiny': ['libnl-tiny.so*'],
      }[id],
      patterns: [
        {
          needle: { libubox: 'uloop', ubus: 'ubus', procd: 'procd', netifd: 'netifd', opkg: 'opkg', 'libnl-tiny': 'genl_' }[id]!,
          regex: /[\s\S]/,
          presence: true,
          hintOnly: true,
          confidence: 0.5,
        },
      ],
    }),
  ),
  {
    id: 'libnl',
    name: 'libnl',
    type: 'library',
    cpe: { vendor: 'libnl_project', product: 'libnl' },
    purl: { name: 'libnl' },
    files: ['libnl-3.so*', 'libnl-genl-3.so*', 'libnl-route-3.so*'],
    patterns: [],
    standalone: [standalone('nl_', /^3\.\d+\.\d+$/)],
  },
];
