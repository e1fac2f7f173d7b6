// Binaries of a scan on both dialects: written with the result, the image's unsafe use count, the hardening
// summary and the binaries grid (filters, sort, paging, errors, CSV), over binaries built here.
import { beforeAll, expect, it } from 'vitest';
import { totalUnsafeUses } from '../../src/engine/binaries/unsafe-functions.js';
import type { BinaryInfo, ElfHardening, PeHardening } from '../../src/engine/types.js';
import { binaryGrid, binaryGridCsv } from '../../src/services/binary-grid.js';
import { createRepositories, type Repositories } from '../../src/store/repositories.js';
import { describeEachDatabase } from '../support/databases.js';
import { duplicateResultProblems } from '../support/store-invariants.js';

const ELF: ElfHardening = { nx: true, pie: true, relro: 'full', canary: true, fortify: true, stripped: false, rpath: null, runpath: null };
const PE: PeHardening = { nx: true, aslr: true, highEntropyVa: false, cfg: false, safeSeh: true, forceIntegrity: false, signed: false };
const symbols = { imported: 10, exported: 2, defined: 0 };

function elf(path: string, over: Partial<ElfHardening>, calls: Record<string, number>, extra: Partial<BinaryInfo> = {}): BinaryInfo {
  const unsafeFunctions = Object.entries(calls).map(([name, n]) => ({ name, symbol: name, linkage: 'imported' as const, callSites: n, callers: [{ function: 'main', callSites: n }] }));
  return {
    path, format: 'elf', type: 'executable', arch: 'mipsel', bits: 32, endian: 'le', hardening: { ...ELF, ...over }, unsafeFunctions,
    callSitesDecoded: true, networkFacing: false, unsafeUses: Object.values(calls).reduce((a, b) => a + b, 0), symbols, ...extra,
  } as BinaryInfo;
}

function pe(path: string, over: Partial<PeHardening>, imports: string[]): BinaryInfo {
  return {
    path, format: 'pe', type: 'executable', arch: 'x86', bits: 32, endian: 'le', hardening: { ...PE, ...over },
    unsafeFunctions: imports.map((name) => ({ name, symbol: `_${name}`, linkage: 'imported' as const, callers: [] })),
    callSitesDecoded: false, networkFacing: false, unsafeUses: imports.length, symbols,
  };
}

const BINARIES: BinaryInfo[] = [
  elf('usr/sbin/httpd', { nx: false, canary: false, relro: 'none', pie: false }, { strcpy: 7, system: 2 }, { networkFacing: true }),
  elf('bin/busybox', { relro: 'partial', stripped: true }, { sprintf: 3 }),
  elf('lib/libc.so', { rpath: '/opt/lib' }, {}, { type: 'shared-object' }),
  elf('boot/vmlinux', { nx: false, pie: false, canary: false }, {}, { type: 'kernel', arch: 'mips', endian: 'be' }),
  pe('efi/tool.exe', { nx: false, aslr: false }, ['strcpy', 'sprintf']),
  pe('efi/signed.efi', { signed: true, cfg: true, highEntropyVa: true }, []),
];

describeEachDatabase('binaries of a scan', (get) => {
  let repos: Repositories;
  let principal: { userId: string; orgId: string; email: string; role: 'viewer'; kind: 'user' };
  let productId: string;
  let imageId: string;
  let scanId: string;
  let oldImageId: string;
  let oldScanId: string;

  async function imageWithScan(orgId: string, userId: string, binaries: BinaryInfo[] | undefined): Promise<{ imageId: string; scanId: string }> {
    const image = await repos.images.create({ productId, orgId, name: 'i', fileName: 'i.bin', authorId: userId, blob: { key: 'k', size: 1, sha256: 'a', sha1: 'b', md5: 'c' } });
    const scan = await repos.scans.create({ imageId: image.id, productId, orgId, authorId: userId });
    await repos.scans.transition(scan.id, ['new'], 'running');
    await repos.results.store({ scanId: scan.id, imageId: image.id, productId }, { components: [], findings: [], cryptoAssets: [], binaries });
    await repos.scans.transition(scan.id, ['running'], 'done');
    return { imageId: image.id, scanId: scan.id };
  }

  beforeAll(async () => {
    repos = createRepositories(get().db, get().dialect);
    const org = await repos.identities.createOrg('acme');
    const user = await repos.identities.createUser({ orgId: org.id, email: 'v@acme.test', role: 'viewer', passwordHash: null });
    principal = { userId: user.id, orgId: org.id, email: user.email, role: 'viewer', kind: 'user' };
    productId = (await repos.products.create({ orgId: org.id, name: 'p', authorId: user.id })).id;
    ({ imageId, scanId } = await imageWithScan(org.id, user.id, BINARIES));
    // A result from before the engine reported binaries: nothing recorded.
    ({ imageId: oldImageId, scanId: oldScanId } = await imageWithScan(org.id, user.id, undefined));
  });

  it('counts the unsafe function uses of the image from the stored total, 0 for results stored before it', async () => {
    expect((await repos.results.counts(imageId, scanId)).unsafeFunctionsCount).toBe(totalUnsafeUses(BINARIES));
    expect(totalUnsafeUses(BINARIES)).toBe(14);
    expect((await repos.results.counts(oldImageId, oldScanId)).unsafeFunctionsCount).toBe(0);
  });

  it('stores once when the result is stored again (a retried scan)', async () => {
    await repos.results.store({ scanId, imageId, productId }, { components: [], findings: [], cryptoAssets: [], binaries: BINARIES });
    expect((await binaryGrid(repos, principal, { filters: [{ field: 'imageId', value: imageId }] })).total).toBe(BINARIES.length);
    expect(await duplicateResultProblems(get().db)).toEqual([]);
    expect((await repos.results.counts(imageId, scanId)).unsafeFunctionsCount).toBe(14);
  });

  it('summarises hardening as shares of the ELF programs and of the PE images', async () => {
    expect(await repos.binaries.hardening(scanId)).toEqual({
      binaries: 6,
      // httpd, busybox, libc.so (the kernel is not a program)
      elf: { count: 3, nx: 2 / 3, pie: 2 / 3, relroFull: 1 / 3, relroPartial: 1 / 3, canary: 2 / 3, fortify: 1, stripped: 1 / 3 },
      pe: { count: 2, nx: 0.5, aslr: 0.5, highEntropyVa: 0.5, cfg: 0.5, safeSeh: 1, forceIntegrity: 0, signed: 0.5 },
    });
    expect(await repos.binaries.hardening(oldScanId)).toBeUndefined();
  });

  it('filters by path, arch, format, hardening flags, network-facing and unsafe use count', async () => {
    const scope = { field: 'imageId', value: imageId };
    const paths = async (...filters: Array<{ field: string; value: unknown; comparator?: string }>) =>
      (await binaryGrid(repos, principal, { filters: [scope, ...filters], page: { size: 100 }, sortBy: { field: 'path' } })).rows.map((r) => r.path);
    expect(await paths({ field: 'path', value: 'EFI/', comparator: 'contains' })).toEqual(['efi/signed.efi', 'efi/tool.exe']);
    expect(await paths({ field: 'arch', value: 'mips' })).toEqual(['boot/vmlinux']);
    expect(await paths({ field: 'format', value: ['pe', 'te'], comparator: 'in' })).toEqual(['efi/signed.efi', 'efi/tool.exe']);
    expect(await paths({ field: 'nx', value: false })).toEqual(['boot/vmlinux', 'efi/tool.exe', 'usr/sbin/httpd']);
    expect(await paths({ field: 'relro', value: 'partial' })).toEqual(['bin/busybox']);
    expect(await paths({ field: 'signed', value: 'true' })).toEqual(['efi/signed.efi']);
    expect(await paths({ field: 'networkFacing', value: true })).toEqual(['usr/sbin/httpd']);
    expect(await paths({ field: 'unsafeUses', value: [2, 5], comparator: 'between' })).toEqual(['bin/busybox', 'efi/tool.exe']);
    expect(await paths({ field: 'pie', value: false }, { field: 'type', value: 'executable' })).toEqual(['usr/sbin/httpd']);
  });

  it('shapes rows with the flags of their format only, sorts and pages', async () => {
    const all = await binaryGrid(repos, principal, { filters: [{ field: 'productId', value: productId }], page: { num: 1, size: 2 } });
    expect(all.total).toBe(6);
    expect(all.rows.map((r) => r.path)).toEqual(['usr/sbin/httpd', 'bin/busybox']);
    expect(all.rows[0]).toMatchObject({
      format: 'elf', arch: 'mipsel', bits: 32, endian: 'le', nx: false, pie: false, relro: 'none', canary: false, unsafeUses: 9,
      unsafeFunctions: ['strcpy', 'system'], networkFacing: true, productId, imageId, scanId, callSitesDecoded: true,
    });
    expect(all.rows[0]).not.toHaveProperty('aslr');
    const page3 = await binaryGrid(repos, principal, { filters: [{ field: 'imageId', value: imageId }], page: { num: 3, size: 2 }, sortBy: [{ field: 'format', direction: 'descend' }, { field: 'path', direction: 'ascend' }] });
    expect(page3.rows.map((r) => r.path)).toEqual(['lib/libc.so', 'usr/sbin/httpd']);
    const libc = (await binaryGrid(repos, principal, { filters: [{ field: 'imageId', value: imageId }, { field: 'path', value: 'lib/libc.so' }] })).rows[0];
    expect(libc).toMatchObject({ rpath: '/opt/lib', type: 'shared-object', unsafeFunctions: [] });
    const tool = (await binaryGrid(repos, principal, { filters: [{ field: 'imageId', value: imageId }, { field: 'path', value: 'efi/tool.exe' }] })).rows[0];
    expect(tool).toMatchObject({ aslr: false, safeSeh: true, callSitesDecoded: false, unsafeUses: 2 });
    expect(tool).not.toHaveProperty('pie');
  });

  it('is scoped to the caller organisation and to latest completed scans', async () => {
    const other = { ...principal, orgId: (await repos.identities.createOrg('other')).id };
    expect((await binaryGrid(repos, other, { filters: [{ field: 'productId', value: productId }] })).total).toBe(0);
    expect((await binaryGrid(repos, principal, { filters: [{ field: 'imageId', value: oldImageId }] })).total).toBe(0);
  });

  it('refuses bad requests with a message naming what to fix', async () => {
    const scope = { field: 'productId', value: productId };
    await expect(binaryGrid(repos, principal, { filters: [{ field: 'arch', value: 'arm' }] })).rejects.toThrow(/productId or imageId filter is required/);
    await expect(binaryGrid(repos, principal, {} as never)).rejects.toThrow(/filters is required/);
    for (const field of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      await expect(binaryGrid(repos, principal, { filters: [scope, { field, value: 'x' }] })).rejects.toThrow(`unknown field '${field}'`);
      await expect(binaryGrid(repos, principal, { filters: [scope], sortBy: { field } })).rejects.toThrow(`unknown field '${field}'`);
    }
    await expect(binaryGrid(repos, principal, { filters: [scope, { field: 'nx', value: 'maybe' }] })).rejects.toThrow(/expected true or false/);
    await expect(binaryGrid(repos, principal, { filters: [scope, { field: 'nx', value: true, comparator: 'contains' }] })).rejects.toThrow(/unknown comparator 'contains'; use one of equals/);
    await expect(binaryGrid(repos, principal, { filters: [scope, { field: 'unsafeUses', value: [1], comparator: 'between' }] })).rejects.toThrow(/between takes \[low, high\]/);
    await expect(binaryGrid(repos, principal, { filters: [scope, { field: 'unsafeUses', value: 'many' }] })).rejects.toThrow(/'many' is not a number/);
    await expect(binaryGrid(repos, principal, { filters: [scope, { field: 'relro', value: 'strong' }] })).rejects.toThrow(/'strong' is not one of full, partial, none/);
    await expect(binaryGrid(repos, principal, { filters: [scope, { field: 'arch', value: Array.from({ length: 1001 }, () => 'x'), comparator: 'in' }] })).rejects.toThrow(/at most 1000 values/);
    await expect(binaryGrid(repos, principal, { filters: [scope], page: { size: 101 } })).rejects.toThrow(/page.size must be 1 to 100/);
  });

  it('exports every matching row as CSV with formula cells neutralised', async () => {
    const { rows } = await binaryGrid(repos, principal, { filters: [{ field: 'imageId', value: imageId }], page: { size: 1 } }, { all: true });
    expect(rows).toHaveLength(6);
    const csv = binaryGridCsv([...rows, { id: 'x', path: '=cmd|calc', unsafeFunctions: ['strcpy', 'system'] }]);
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,path,format,type,arch,bits,endian,nx,pie,relro,canary,fortify,stripped,rpath,runpath,aslr,highEntropyVa,cfg,safeSeh,forceIntegrity,signed,unsafeUses,unsafeFunctions,networkFacing,productId,imageId,scanId');
    expect(lines).toHaveLength(8);
    expect(lines[1]).toContain(',usr/sbin/httpd,elf,executable,mipsel,32,le,false,false,none,false,true,false,,,,,,,,,9,strcpy system,true,');
    expect(lines[7]).toContain(`'=cmd|calc`);
  });
});
