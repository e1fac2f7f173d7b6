// Intel ME/CSME firmware versions from the FTPR manifest. No real ME region is available here (vendors' flash
// images are not redistributable), so the regions are built in the test from the published layouts (ME Analyzer's
// MN2_Manifest_R0 and CPD_Header_R1/R2, UEFITool's ME_VERSION): only the header fields speak, the rest is zeros.
import { afterAll, describe, expect, it } from 'vitest';
import { engineVersion, manifestVersion } from '../../../src/engine/inventory/intel-me.identifier.js';
import { fixtureTrees, inventoryOfDirectory } from './support.js';

const { tree, cleanup } = fixtureTrees('intel-me-');
afterAll(cleanup);

/** A manifest header: type 4, header version 0x10000, vendor 0x8086, BCD date, '$MN2', version words. */
function manifest(version: [number, number, number, number], date = [0x15, 0x03, 0x2021] as [number, number, number]): Buffer {
  const m = Buffer.alloc(0x80);
  m.writeUInt32LE(4, 0);
  m.writeUInt32LE(0xa1, 4);
  m.writeUInt32LE(0x10000, 8);
  m.writeUInt32LE(0x8086, 0x10);
  m[0x14] = date[0];
  m[0x15] = date[1];
  m.writeUInt16LE(date[2], 0x16);
  m.write('$MN2', 0x1c, 'latin1');
  version.forEach((v, i) => m.writeUInt16LE(v, 0x24 + 2 * i));
  return m;
}

/** A $CPD directory (header v2, 0x14 bytes) named `partition` whose entries point at manifests placed after it. */
function cpd(partition: string, entries: Array<{ name: string; body: Buffer }>): Buffer {
  const header = Buffer.alloc(0x14 + entries.length * 24);
  header.write('$CPD', 0, 'latin1');
  header.writeUInt32LE(entries.length, 4);
  header[8] = 2;
  header[9] = 1;
  header[0x0a] = 0x14;
  header.write(partition, 0x0c, 'latin1');
  let offset = 0x200;
  const bodies = Buffer.alloc(0x200 + entries.reduce((n, e) => n + e.body.length, 0));
  entries.forEach((e, i) => {
    const at = 0x14 + i * 24;
    header.write(e.name, at, 'latin1');
    header.writeUInt32LE(offset, at + 12);
    header.writeUInt32LE(e.body.length, at + 16);
    e.body.copy(bodies, offset);
    offset += e.body.length;
  });
  header.copy(bodies, 0);
  return bodies;
}

/** A region: 16-byte ROM bypass, '$FPT', then the partitions at 4 KiB boundaries. */
function region(...partitions: Buffer[]): Buffer {
  const out = Buffer.alloc(0x1000 * (partitions.length + 1));
  out.write('$FPT', 0x10, 'latin1');
  out.writeUInt32LE(partitions.length, 0x14);
  partitions.forEach((p, i) => p.copy(out, 0x1000 * (i + 1)));
  return out;
}

describe('Intel ME/CSME version from the FTPR manifest', () => {
  it('CSE: takes FTPR.man of the FTPR directory, not the other partitions\' manifests', () => {
    const pmc = cpd('PMCP', [{ name: 'PMCP.man', body: manifest([300, 2, 11, 1013]) }]);
    const ftpr = cpd('FTPR', [{ name: 'FTPR.man', body: manifest([15, 0, 41, 2158], [0x05, 0x07, 0x2022]) }, { name: 'rbe', body: Buffer.alloc(64) }]);
    const found = engineVersion(region(pmc, ftpr));
    expect(found).toEqual({ version: '15.0.41.2158', date: '2022-07-05', offset: 0x2000 + 0x200, via: 'cpd-ftpr' });
  });

  it('ME 6-10: the region\'s first manifest', () => {
    expect(engineVersion(region(manifest([9, 1, 45, 3000]), manifest([9, 1, 45, 3000]))))
      .toMatchObject({ version: '9.1.45.3000', via: 'first-manifest', offset: 0x1000 });
  });

  it('refuses a $MN2 tag without its header, and a CSE region whose FTPR directory is missing', () => {
    const bare = Buffer.alloc(0x100);
    bare.write('$MN2', 0x40, 'latin1');
    expect(manifestVersion(bare, 0x40 - 0x1c)).toBeUndefined();
    expect(engineVersion(region(bare))).toBeUndefined();
    const notIntel = manifest([11, 8, 50, 3425]);
    notIntel.writeUInt32LE(0x1022, 0x10);
    expect(engineVersion(region(notIntel))).toBeUndefined();
    expect(engineVersion(region(cpd('PMCP', [{ name: 'PMCP.man', body: manifest([300, 2, 11, 1013]) }])))).toBeUndefined();
  });

  it('is a firmware component of the ME region file, with the manifest as evidence', async () => {
    const ftpr = cpd('FTPR', [{ name: 'FTPR.man', body: manifest([11, 8, 50, 3425]) }]);
    const ctx = await inventoryOfDirectory(tree({ 'flash/2-me.bin': region(ftpr), 'flash/notes.txt': Buffer.from('$FPT $MN2 FTPR.man\n') }));
    const me = ctx.components.filter((c) => c.foundBy.includes('intel-me'));
    expect(me).toHaveLength(1);
    expect(me[0]).toMatchObject({ name: 'intel-csme', version: '11.8.50.3425', type: 'firmware', supplier: 'Intel', purl: 'pkg:generic/intel/intel-csme@11.8.50.3425' });
    expect(me[0]!.cpe).toBeUndefined();
    expect(me[0]!.evidence[0].match).toContain("Intel CSME 11.8.50.3425, built 2021-03-15: $MN2 manifest at 0x1200 (the FTPR partition's FTPR.man)");
  });
});
