// Every image in ../shared/corpus through the real unpacker, as `firmscope unpack` runs it (the registry, the
// default limits): one run per image, shared by its checks. Every image: no `error` and no `limit` problems,
// and every extracted file is on disk with its recorded size. Images with known contents: their leaf files.
// The expectations come from the corpus README's format chains and were checked with standard tools:
//   OpenWrt: 756 SquashFS inodes (README) = root + 65 folders + 179 symlinks + 1 device + 510 files;
//   TRENDnet: 1811 inodes (README) = root + 98 folders + 160 symlinks + 76 devices + 1476 files (the 15 more
//   file nodes of the whole tree are streams carved out of those files);
//   OVMF_VARS: `openssl x509 -inform der -subject` of each extracted certificate; vmlinux sizes per the README.
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { X509Certificate } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileNode } from '../../../src/engine/types.js';
import { unpack, type UnpackResult } from '../../../src/engine/unpack/driver.js';
import { corpus, haveShared, sharedPath } from '../../support/shared.js';

interface Run {
  result: UnpackResult;
  out: string;
}

const images = haveShared('corpus') ? readdirSync(sharedPath('corpus')).filter((name) => !name.endsWith('.md')).sort() : [];

/** Extracted nodes of one kind (default: regular files) that a handler produced. */
function nodesOf(run: Run, format: string, kind: FileNode['kind'] = 'file'): FileNode[] {
  return run.result.files.filter((f) => f.format === format && f.kind === kind);
}

/** The one node at this path inside its container (fsPath), from this handler. */
function leaf(run: Run, format: string, fsPath: string): FileNode {
  const found = run.result.files.filter((f) => f.format === format && f.fsPath === fsPath);
  expect(found.map((f) => f.fsPath), `${format} ${fsPath}`).toEqual([fsPath]);
  return found[0]!;
}

const fileName = (f: FileNode) => f.fsPath.slice(f.fsPath.lastIndexOf('/') + 1);

const OVMF_CODE_MODULES = ['SecMain', 'PeiCore', 'DxeIpl', 'DxeCore', 'BdsDxe', 'PiSmmCore', 'VariableSmm', 'SecureBootConfigDxe', 'Tcg2Dxe', 'UiApp'];

/** What each known image must yield, beyond the checks every image gets. */
const expectations: Record<string, (run: Run) => Promise<void> | void> = {
  'openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin': (run) => {
    expect(leaf(run, 'lzma', '/MIPS OpenWrt Linux-5.4.43')).toMatchObject({ size: 7_709_235 });
    expect(nodesOf(run, 'squashfs-v4')).toHaveLength(510);
    expect(nodesOf(run, 'squashfs-v4', 'directory')).toHaveLength(65);
    expect(nodesOf(run, 'squashfs-v4', 'symlink')).toHaveLength(179);
    expect(leaf(run, 'squashfs-v4', '/etc/openwrt_release')).toMatchObject({ type: 'text', size: 218 });
    expect(leaf(run, 'squashfs-v4', '/bin/busybox')).toMatchObject({ type: 'elf', size: 299_048 });
    expect(leaf(run, 'squashfs-v4', '/lib/libc.so')).toMatchObject({ type: 'elf' });
    expect(leaf(run, 'squashfs-v4', '/usr/lib/opkg/status')).toMatchObject({ type: 'text' });
    expect(leaf(run, 'squashfs-v4', '/bin/ash')).toMatchObject({ kind: 'symlink', linkTarget: 'busybox' });
  },
  'trendnet-tew733gr-rootfs.squashfs': (run) => {
    expect(nodesOf(run, 'squashfs-v4')).toHaveLength(1476);
    expect(nodesOf(run, 'squashfs-v4', 'directory')).toHaveLength(98);
    expect(nodesOf(run, 'squashfs-v4', 'symlink')).toHaveLength(160);
    expect(nodesOf(run, 'squashfs-v4', 'device')).toHaveLength(76);
    expect(leaf(run, 'squashfs-v4', '/bin/busybox')).toMatchObject({ type: 'elf', size: 499_376 });
    expect(leaf(run, 'squashfs-v4', '/sbin/httpd')).toMatchObject({ type: 'elf' });
    expect(leaf(run, 'squashfs-v4', '/lib/libuClibc-0.9.30.1.so')).toMatchObject({ type: 'elf' });
    expect(leaf(run, 'squashfs-v4', '/etc/openssl.cnf')).toMatchObject({ type: 'text' });
  },
  'OVMF_CODE.secboot.fd': async (run) => {
    const modules = nodesOf(run, 'uefi-fv').filter((f) => f.type === 'pe');
    expect(modules.length).toBeGreaterThanOrEqual(131);
    const names = new Set(modules.map(fileName));
    for (const name of OVMF_CODE_MODULES) expect(names, name).toContain(`${name}.efi`);
    // Named by GUID and user-interface name; a PE image on disk.
    const dxeCore = leaf(run, 'uefi-fv', '/D6A2CB7F-6A18-4E2F-B43B-9920A733700A_DxeCore/DxeCore.efi');
    expect((await readFile(join(run.out, dxeCore.path))).subarray(0, 2).toString('latin1')).toBe('MZ');
  },
  'OVMF_VARS.secboot.fd': async (run) => {
    const variables = nodesOf(run, 'uefi-varstore').map(fileName).sort();
    expect(variables).toEqual(['CustomMode', 'KEK', 'PK', 'SecureBootEnable', 'db', 'dbx']);
    const subjects: Record<string, string> = {};
    for (const cert of nodesOf(run, 'efi-signature-list').filter((f) => f.type === 'der')) {
      const variable = /\/([^/]+)_extract\/[^/]+$/.exec(cert.path)![1]!;
      subjects[`${variable}/${fileName(cert)}`] = new X509Certificate(await readFile(join(run.out, cert.path))).subject;
    }
    expect(Object.keys(subjects).sort()).toEqual(['KEK/cert-0.der', 'KEK/cert-1.der', 'PK/cert-0.der', 'db/cert-0.der', 'db/cert-1.der']);
    expect(subjects['PK/cert-0.der']).toContain('CN=Red Hat Secure Boot (PK/KEK key 1)');
    expect(subjects['KEK/cert-1.der']).toContain('CN=Microsoft Corporation KEK CA 2011');
    expect(subjects['db/cert-0.der']).toContain('CN=Microsoft Windows Production PCA 2011');
    expect(subjects['db/cert-1.der']).toContain('CN=Microsoft Corporation UEFI CA 2011');
    expect(leaf(run, 'efi-signature-list', '/sha256-hashes.txt')).toMatchObject({ type: 'text' });
  },
  'ApolloLake-Fsp.fd': (run) => {
    expect(run.result.stats.formats['uefi-fv']).toBe(3);
    const modules = nodesOf(run, 'uefi-fv').map(fileName);
    for (const name of ['FspInit.efi', 'SiInit.efi', 'FspNotifyPhasePeim.efi', 'PeiCore.te', 'MemoryInit.te', 'FspInitPreMem.te']) {
      expect(modules, name).toContain(name);
    }
  },
  'coreboot.rom': (run) => {
    expect(leaf(run, 'cbfs', '/fallback/romstage')).toMatchObject({ size: 15_784 });
    expect(leaf(run, 'cbfs', '/fallback/ramstage')).toMatchObject({ size: 148_660 });
    for (const path of ['/fallback/dsdt.aml', '/config', '/revision', '/bootblock']) leaf(run, 'cbfs', path);
  },
  'dropbearStaticMipsel.tar.bz2': (run) => {
    for (const name of ['dropbear', 'dropbearkey', 'dropbearconvert', 'libz.so.1.2.3']) {
      expect(leaf(run, 'tar', `/dropbearStaticMipsel/${name}`), name).toMatchObject({ type: 'elf' });
    }
    expect(leaf(run, 'tar', '/dropbearStaticMipsel/libz.so')).toMatchObject({ kind: 'symlink', linkTarget: 'libz.so.1.2.3' });
    expect(nodesOf(run, 'ar')).toHaveLength(13);
  },
  bzImage_xz: (run) => {
    expect(leaf(run, 'xz', '/vmlinux')).toMatchObject({ type: 'elf', size: 1_015_400 });
  },
  'tplink-tl-mr3020-v1_3.17.2_test.tpl': (run) => {
    expect(nodesOf(run, 'squashfs-v4').map((f) => f.fsPath).sort()).toEqual(['/generic folder/test file 3_.txt', '/testfile1', '/testfile2']);
    leaf(run, 'lzma', '/kernel');
  },
  // Plain executables and keys: the image is its own leaf, recognised by type.
  'busybox-mipsel': (run) => expect(run.result.files[0]!.type).toBe('elf'),
  'ncat-linux-x86_64': (run) => expect(run.result.files[0]!.type).toBe('elf'),
  'tcpdump-linux-arm': (run) => expect(run.result.files[0]!.type).toBe('elf'),
  'nmap.exe': (run) => expect(run.result.files[0]!.type).toBe('pe'),
  'ssl.key': (run) => expect(run.result.files[0]!.type).toBe('private-key-pem'),
};

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'fs-corpus-all-'));
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe.runIf(images.length > 0)('corpus: every image unpacks down to its leaf files', () => {
  for (const name of images) {
    describe(name, () => {
      let run: Run | undefined;
      beforeAll(async () => {
        const out = join(work, name);
        run = { result: await unpack(corpus(name), out), out };
      }, 120_000);

      it('has no error or limit problems, and every extracted file is on disk', async () => {
        const { result, out } = run!;
        expect(result.problems.filter((p) => p.kind === 'error' || p.kind === 'limit')).toEqual([]);
        expect(result.files[0]).toMatchObject({ path: name, depth: 0 });
        for (const node of result.files.filter((f) => f.kind === 'file')) {
          expect((await stat(join(out, node.path))).size, node.path).toBe(node.size);
        }
      });

      const expected = expectations[name];
      if (expected) it('yields its expected leaf files', async () => expected(run!));
    });
  }
});
