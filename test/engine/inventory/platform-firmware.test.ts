// Intel ME/CSME and AMD PSP versions from their headers. No real image is at hand (vendor flash dumps are not
// redistributable), so the images are built here field by field per the published layouts (coreboot ifdtool and
// amdfwtool, MEAnalyzer, PSPTool; see the identifiers' heads); everything else in them is zero.
import { afterAll, describe, expect, it } from 'vitest';
import { parsePspBootLoaders } from '../../../src/engine/inventory/amd-psp.identifier.js';
import { parseMeFirmware } from '../../../src/engine/inventory/intel-me.identifier.js';
import { fixtureTrees, inventoryOfDirectory } from './support.js';

const { tree, cleanup } = fixtureTrees('platfw-');
afterAll(cleanup);

/** A manifest header: '$MN2' at 0x1C, vendor at 0x10, BCD date at 0x14, version at 0x24. */
function manifest(buf: Buffer, at: number, version: number[], vendor = 0x8086, date = 0x20200115): void {
  buf.writeUInt32LE(4, at);
  buf.writeUInt32LE(0xa1, at + 4);
  buf.writeUInt32LE(0x10000, at + 8);
  buf.writeUInt32LE(vendor, at + 0x10);
  buf.writeUInt32LE(date, at + 0x14);
  buf.write('$MN2', at + 0x1c, 'latin1');
  version.forEach((v, i) => buf.writeUInt16LE(v, at + 0x24 + i * 2));
}

/** A $FPT v2.0 header at `at` with 0x20-byte entries (name, owner, offset, length). */
function fpt(buf: Buffer, at: number, entries: Array<[string, number]>, fit = [0, 0, 0, 0]): void {
  buf.write('$FPT', at, 'latin1');
  buf.writeUInt32LE(entries.length, at + 4);
  buf[at + 8] = 0x20;
  buf[at + 9] = 0x10;
  buf[at + 0x0a] = 0x20;
  fit.forEach((v, i) => buf.writeUInt16LE(v, at + 0x18 + i * 2));
  entries.forEach(([name, offset], i) => {
    const e = at + 0x20 + i * 0x20;
    buf.write(name, e, 'latin1');
    buf.writeUInt32LE(offset, e + 8);
    buf.writeUInt32LE(0x10000, e + 12);
  });
}

/** A CSME 11+ ME region: $FPT at 0x10, FTPR a $CPD code partition whose 'FTPR.man' entry holds the manifest. */
function csmeRegion(version: number[], vendor = 0x8086): Buffer {
  const buf = Buffer.alloc(0x40000);
  fpt(buf, 0x10, [['FTPR', 0x10000], ['NFTP', 0x30000]], [11, 8, 50, 3425]);
  const cpd = 0x10000;
  buf.write('$CPD', cpd, 'latin1');
  buf.writeUInt32LE(2, cpd + 4);
  buf[cpd + 8] = 1;
  buf[cpd + 9] = 1;
  buf[cpd + 0x0a] = 0x10;
  buf.write('FTPR', cpd + 0x0c, 'latin1');
  buf.write('rbe', cpd + 0x10, 'latin1');
  buf.writeUInt32LE(0x1000, cpd + 0x10 + 12);
  buf.write('FTPR.man', cpd + 0x28, 'latin1');
  buf.writeUInt32LE(0x40, cpd + 0x28 + 12);
  manifest(buf, cpd + 0x40, version, vendor);
  return buf;
}

/** A whole SPI image: flash descriptor (FRBA 0x40, ME region 0x3000-0xFFFFF), ME 9 region with the manifest at FTPR's start. */
function spiImageMe9(): Buffer {
  const buf = Buffer.alloc(0x200000);
  buf.writeUInt32LE(0x0ff0a55a, 0x10);
  buf.writeUInt32LE(0x04 << 16, 0x14);
  buf.writeUInt32LE((0xff << 16) | 0x3, 0x40 + 8);
  fpt(buf, 0x3010, [['FTPR', 0x8000]]);
  manifest(buf, 0x3000 + 0x8000, [9, 1, 2, 1010], 0x8086, 0x20140512);
  return buf;
}

describe('Intel ME/CSME', () => {
  it('reads a CSME 11 region: $FPT, FTPR $CPD, FTPR.man manifest; CSME CPE at major.minor.hotfix', async () => {
    const me = parseMeFirmware(csmeRegion([11, 8, 50, 3425]));
    expect(me).toEqual({ fptOffset: 0x10, partition: 'FTPR', manifestOffset: 0x10040, version: '11.8.50.3425', fitVersion: '11.8.50.3425', date: '2020-01-15' });
    const ctx = await inventoryOfDirectory(tree({ 'me_region.bin': csmeRegion([11, 8, 50, 3425]) }));
    const c = ctx.components.find((x) => x.foundBy.includes('intel-me'));
    expect(c).toMatchObject({ name: 'intel-me', version: '11.8.50.3425', type: 'firmware', supplier: 'Intel', cpe: 'cpe:2.3:o:intel:converged_security_and_management_engine_firmware:11.8.50:*:*:*:*:*:*:*' });
    expect(c!.evidence[0].match).toContain('FTPR manifest $MN2 at 0x10040: version 11.8.50.3425');
  });

  it('reads the ME region of a whole SPI image through the descriptor; below 11 there is no CPE (ME, TXE and SPS share the numbers)', async () => {
    expect(parseMeFirmware(spiImageMe9())).toMatchObject({ fptOffset: 0x3010, manifestOffset: 0xb000, version: '9.1.2.1010', date: '2014-05-12' });
    const ctx = await inventoryOfDirectory(tree({ 'bios.bin': spiImageMe9() }));
    const c = ctx.components.find((x) => x.foundBy.includes('intel-me'));
    expect(c).toMatchObject({ version: '9.1.2.1010' });
    expect(c!.cpe).toBeUndefined();
  });

  it('gives nothing without a valid manifest: another vendor id, a partition past the end, a descriptor without an ME region', async () => {
    expect(parseMeFirmware(csmeRegion([11, 8, 50, 3425], 0x1022))).toBeUndefined();
    const past = Buffer.alloc(0x20000);
    fpt(past, 0, [['FTPR', 0x100000]]);
    expect(parseMeFirmware(past)).toBeUndefined();
    const noMe = spiImageMe9();
    noMe.writeUInt32LE(0x00007fff, 0x48);
    expect(parseMeFirmware(noMe)).toBeUndefined();
    const ctx = await inventoryOfDirectory(tree({ 'amd.bin': csmeRegion([11, 8, 50, 3425], 0x1022), 'past.bin': past }));
    expect(ctx.components.filter((x) => x.foundBy.includes('intel-me'))).toEqual([]);
  });
});

/** A 16 MiB AMD flash image: EFS at 0x20000, a $PSP directory at 0x100000 and a $PL2 at 0x200000, each with a boot loader. */
function amdFlash(opts: { secondVersion?: number[]; noPs1?: boolean } = {}): Buffer {
  const buf = Buffer.alloc(0x1000000);
  buf.writeUInt32LE(0x55aa55aa, 0x20000);
  buf.writeUInt32LE(0xff100000, 0x20000 + 0x10);
  const dir = (at: number, cookie: string, entries: Array<[number, number, bigint]>): void => {
    buf.write(cookie, at, 'latin1');
    buf.writeUInt32LE(entries.length, at + 8);
    entries.forEach(([type, size, address], i) => {
      const e = at + 16 + i * 16;
      buf[e] = type;
      buf.writeUInt32LE(size, e + 4);
      buf.writeBigUInt64LE(address, e + 8);
    });
  };
  const loader = (at: number, version: number[]): void => {
    if (!opts.noPs1) buf.write('$PS1', at + 0x10, 'latin1');
    buf.writeUInt32LE(0xf000, at + 0x14);
    Buffer.from(version).copy(buf, at + 0x60);
  };
  // Physical addresses (the flash mapped just below 4 GiB): public key, boot loader, SMU firmware.
  dir(0x100000, '$PSP', [[0x00, 0x240, 0xff101000n], [0x01, 0x10000, 0xff110000n], [0x08, 0x8000, 0xff130000n]]);
  loader(0x110000, [0x3b, 0x00, 0x08, 0x00]);
  // Directory-relative address (mode 2 in the top bits).
  dir(0x200000, '$PL2', [[0x01, 0x10000, (2n << 62n) | 0x1000n]]);
  loader(0x201000, opts.secondVersion ?? [0x3b, 0x00, 0x08, 0x00]);
  return buf;
}

describe('AMD PSP', () => {
  it('reads the boot loader version from each directory (physical and directory-relative addresses)', () => {
    expect(parsePspBootLoaders(amdFlash({ secondVersion: [0x41, 0x00, 0x08, 0x00] }))).toEqual([
      { directory: 0x100000, cookie: '$PSP', offset: 0x110000, version: '0.8.0.3B' },
      { directory: 0x200000, cookie: '$PL2', offset: 0x201000, version: '0.8.0.41' },
    ]);
  });

  it('is a firmware component without a CPE (NVD has no PSP product), other directories\' versions in the evidence', async () => {
    const ctx = await inventoryOfDirectory(tree({ 'bios.rom': amdFlash({ secondVersion: [0x41, 0x00, 0x08, 0x00] }) }));
    const c = ctx.components.find((x) => x.foundBy.includes('amd-psp'));
    expect(c).toMatchObject({ name: 'amd-psp-bootloader', version: '0.8.0.3B', type: 'firmware', supplier: 'AMD' });
    expect(c!.cpe).toBeUndefined();
    expect(c!.evidence[0].match).toContain('other directories carry 0.8.0.41');
  });

  it('gives nothing when the boot loader entry points at no $PS1 header, or the image has no PSP directory', async () => {
    expect(parsePspBootLoaders(amdFlash({ noPs1: true }))).toEqual([]);
    const ctx = await inventoryOfDirectory(tree({ 'a.rom': amdFlash({ noPs1: true }), 'b.rom': Buffer.alloc(0x100000) }));
    expect(ctx.components.filter((x) => x.foundBy.includes('amd-psp'))).toEqual([]);
  });
});
