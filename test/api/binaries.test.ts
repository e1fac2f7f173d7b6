// The binaries of a real image through the real server (../shared/corpus dropbear static MIPS bundle; skipped
// with a notice when absent): the image's unsafe function count and hardening summary against the engine's own
// result for the same file, and the binaries grid (filters, sort, paging, errors, CSV export).
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totalUnsafeUses } from '../../src/engine/binaries/unsafe-functions.js';
import { scan } from '../../src/engine/scan.js';
import type { BinaryInfo } from '../../src/engine/types.js';
import { ADMIN, call, passwordToken, startTestServer, uploadAndScan, type TestServer } from '../support/server.js';
import { corpus, haveShared } from '../support/shared.js';

const IMAGE = 'dropbearStaticMipsel.tar.bz2';
const PE_IMAGE = 'nmap.exe';

async function engineBinaries(file: string): Promise<BinaryInfo[]> {
  const workDir = mkdtempSync(join(tmpdir(), 'binaries-api-'));
  try {
    return (await scan(corpus(file), { workDir: join(workDir, 'extract') })).binaries ?? [];
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

describe.runIf(haveShared('corpus', IMAGE))('binaries of a real image over HTTP', () => {
  let t: TestServer;
  let token: string;
  let productId: string;
  let imageId: string;
  let binaries: BinaryInfo[];
  const grid = (body: unknown, query = '') => call(t.base, token, 'POST', `/api/v4/grids/binaries:gridList${query}`, body);
  const scope = () => ({ field: 'imageId', value: imageId, comparator: 'equals' });

  beforeAll(async () => {
    // The engine's own result for the same file, to check what the service stored and summarised.
    binaries = await engineBinaries(IMAGE);
    t = await startTestServer();
    token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
    productId = (await call(t.base, token, 'POST', '/api/v4/products', { name: 'dropbear' })).body.id.split('/')[1];
    imageId = await uploadAndScan(t.base, token, productId, 'dropbear', IMAGE, await readFile(corpus(IMAGE)));
  }, 180_000);
  afterAll(async () => t?.close());

  it('counts unsafe function uses and summarises hardening as the engine found them', async () => {
    expect(binaries.length).toBeGreaterThanOrEqual(4);
    const image = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}`);
    expect(image.status).toBe(200);
    expect(image.body.counts.unsafeFunctionsCount).toBe(totalUnsafeUses(binaries));
    // dropbear 23 + dropbearkey 17 + dropbearconvert 15 + libz 4 call sites, as objdump counts them (test/engine/binaries/corpus.test.ts).
    expect(image.body.counts.unsafeFunctionsCount).toBe(59);
    const elf = binaries.filter((b): b is Extract<BinaryInfo, { format: 'elf' }> => b.format === 'elf' && b.type !== 'kernel');
    const share = (pick: (b: (typeof elf)[number]) => boolean) => elf.filter(pick).length / elf.length;
    expect(image.body.hardening).toEqual({
      binaries: binaries.length,
      elf: {
        count: elf.length, nx: share((b) => b.hardening.nx), pie: share((b) => b.hardening.pie), relroFull: share((b) => b.hardening.relro === 'full'),
        relroPartial: share((b) => b.hardening.relro === 'partial'), canary: share((b) => b.hardening.canary), fortify: share((b) => b.hardening.fortify),
        stripped: share((b) => b.hardening.stripped),
      },
      pe: { count: 0, nx: 0, aslr: 0, highEntropyVa: 0, cfg: 0, safeSeh: 0, forceIntegrity: 0, signed: 0 },
    });
    // The shared object is position independent, the static executables are not.
    expect(image.body.hardening.elf.pie).toBeGreaterThan(0);
    expect(image.body.hardening.elf.pie).toBeLessThan(1);
    const listed = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images`);
    expect(listed.body.images[0]).not.toHaveProperty('hardening');
  });

  it('lists, filters, sorts and pages the binaries', async () => {
    const all = await grid({ filters: [scope()], page: { size: 100 } });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(binaries.length);
    const dropbear = all.body.rows.find((r: { path: string }) => r.path.endsWith('/dropbear'));
    expect(dropbear).toMatchObject({ format: 'elf', type: 'executable', arch: 'mipsel', bits: 32, endian: 'le', networkFacing: true, productId, imageId, callSitesDecoded: true });
    expect(dropbear.unsafeFunctions).toEqual(expect.arrayContaining(['strcpy', 'popen', 'sprintf']));
    expect(dropbear.unsafeFunctionCalls.find((f: { name: string }) => f.name === 'popen').callers).toEqual([{ function: 'x11setauth', callSites: 1 }]);

    expect((await grid({ filters: [scope(), { field: 'arch', value: 'mipsel' }] })).body.total).toBe(binaries.filter((b) => b.arch === 'mipsel').length);
    expect((await grid({ filters: [scope(), { field: 'arch', value: 'arm' }] })).body.total).toBe(0);
    const noNx = await grid({ filters: [scope(), { field: 'nx', value: false, comparator: 'equals' }], page: { size: 100 } });
    expect(noNx.body.rows.map((r: { path: string }) => r.path).sort()).toEqual(binaries.filter((b) => !b.hardening.nx).map((b) => b.path).sort());
    const between = await grid({ filters: [scope(), { field: 'unsafeUses', value: [5, 25], comparator: 'between' }], page: { size: 100 } });
    expect(between.body.rows.map((r: { path: string }) => r.path).sort()).toEqual(binaries.filter((b) => b.unsafeUses >= 5 && b.unsafeUses <= 25).map((b) => b.path).sort());
    expect(between.body.total).toBeGreaterThan(0);

    const byUses = await grid({ filters: [scope()], sortBy: { field: 'unsafeUses', direction: 'descend' }, page: { size: 100 } });
    const uses = byUses.body.rows.map((r: { unsafeUses: number }) => r.unsafeUses);
    expect(uses).toEqual([...uses].sort((a, b) => b - a));
    expect(uses[0]).toBe(Math.max(...binaries.map((b) => b.unsafeUses)));
    const paths = (await grid({ filters: [scope()], sortBy: { field: 'path' }, page: { size: 100 } })).body.rows.map((r: { path: string }) => r.path);
    const page2 = await grid({ filters: [scope()], sortBy: { field: 'path' }, page: { num: 2, size: 2 } });
    expect(page2.body.total).toBe(binaries.length);
    expect(page2.body.rows.map((r: { path: string }) => r.path)).toEqual(paths.slice(2, 4));
  });

  it('answers 400 naming what to fix', async () => {
    const noScope = await grid({ filters: [{ field: 'arch', value: 'mipsel' }] });
    expect(noScope.status).toBe(400);
    expect(noScope.body.message).toMatch(/productId or imageId filter is required/);
    const proto = await grid({ filters: [scope(), { field: '__proto__', value: 'x' }] });
    expect(proto.status).toBe(400);
    expect(proto.body.message).toMatch(/unknown field '__proto__'/);
    expect(proto.body.details[0]).toMatchObject({ field: 'filters[1].field' });
    const sort = await grid({ filters: [scope()], sortBy: { field: 'constructor' } });
    expect(sort.status).toBe(400);
    expect(sort.body.message).toMatch(/unknown field 'constructor'/);
    const tooMany = await grid({ filters: [scope(), { field: 'arch', value: Array.from({ length: 1001 }, () => 'mips'), comparator: 'in' }] });
    expect(tooMany.status).toBe(400);
    expect((await grid({ filters: [scope()], page: { size: 101 } })).status).toBe(400);
  });

  it('exports every matching binary as CSV', async () => {
    const csv = await grid({ filters: [scope()], page: { size: 1 } }, '?contentType=csv');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toMatch(/binaries\.csv/);
    const lines = csv.body.toString('utf8').trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^id,path,format,type,arch,bits,endian,nx,pie,relro,.*,unsafeUses,unsafeFunctions,networkFacing,productId,imageId,scanId$/);
    expect(lines).toHaveLength(binaries.length + 1);
    expect(lines.find((l: string) => l.includes('/dropbear,'))).toMatch(/,elf,executable,mipsel,32,le,.*strcpy.*,true,/);
  });

  it.runIf(haveShared('corpus', PE_IMAGE))('summarises a Windows PE image with the PE mitigations and lists it with the product', async () => {
    const [exe] = await engineBinaries(PE_IMAGE);
    if (exe?.format !== 'pe') throw new Error(`the engine should report ${PE_IMAGE} as a PE binary`);
    const peImageId = await uploadAndScan(t.base, token, productId, 'nmap', PE_IMAGE, await readFile(corpus(PE_IMAGE)));
    const image = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${peImageId}`);
    const h = exe.hardening;
    const one = (value: boolean) => (value ? 1 : 0);
    expect(image.body.hardening).toEqual({
      binaries: 1,
      elf: { count: 0, nx: 0, pie: 0, relroFull: 0, relroPartial: 0, canary: 0, fortify: 0, stripped: 0 },
      pe: { count: 1, nx: one(h.nx), aslr: one(h.aslr), highEntropyVa: one(h.highEntropyVa), cfg: one(h.cfg), safeSeh: one(h.safeSeh), forceIntegrity: one(h.forceIntegrity), signed: one(h.signed) },
    });
    expect(image.body.counts.unsafeFunctionsCount).toBe(exe.unsafeUses);
    const product = await grid({ filters: [{ field: 'productId', value: productId }], page: { size: 100 } });
    expect(product.body.total).toBe(binaries.length + 1);
    const pe = await grid({ filters: [{ field: 'productId', value: productId }, { field: 'format', value: 'pe' }] });
    expect(pe.body.rows).toHaveLength(1);
    expect(pe.body.rows[0]).toMatchObject({ imageId: peImageId, path: exe.path, nx: h.nx, aslr: h.aslr, signed: h.signed });
    expect(pe.body.rows[0]).not.toHaveProperty('pie');
    const aslr = await grid({ filters: [{ field: 'productId', value: productId }, { field: 'aslr', value: h.aslr }] });
    expect(aslr.body.total).toBe(1);
  }, 120_000);
});
