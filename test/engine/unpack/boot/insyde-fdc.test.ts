// Insyde '_FDC' regions built byte by byte (no Insyde image is in ../shared/corpus): a volume header, then a
// '$VSS' or variable-GUID store whose own size field is wrong (the region's size rules).
import { describe, expect, it } from 'vitest';
import { insydeFdcHandler } from '../../../../src/engine/unpack/boot/nvram/insyde-fdc.js';
import { GUIDS } from '../../../../src/engine/unpack/boot/uefi/guid.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { expectTruncationsRefused, extractFiles } from '../extract-harness.js';
import { expectCorruptionsRefused } from '../filesystems/fs-image-harness.js';
import { variableStore } from './efi-builders.js';
import { fdcRegion, vssStore } from './nvram-builders.js';

const OWNER = '11111111-2222-3333-4444-555555555555';

describe('insyde-fdc', () => {
  it('reads the $VSS store inside, to the end of the region', async () => {
    const store = vssStore([
      { name: 'Setup', guid: OWNER, data: Buffer.from('factory setup') },
      { name: 'PK', guid: GUIDS.globalVariable, data: Buffer.from('pk list'), layout: 'auth' },
    ]);
    store.writeUInt32LE(0x10, 4); // a store size UEFITool does not trust either
    const region = fdcRegion(store, 8 + 0x48 + store.length + 32);
    const out = await extractFiles(insydeFdcHandler, Buffer.concat([region, Buffer.alloc(16)]));
    expect(out.chunk).toMatchObject({ start: 0, end: region.length, meta: { storeKind: '$VSS', variables: 2, deleted: 0 } });
    expect(out.entries.map((e) => [e.path, e.meta?.meta?.vendorGuid])).toEqual([['Setup', OWNER], ['PK', GUIDS.globalVariable]]);
    expect(out.files.Setup!.toString()).toBe('factory setup');
  });

  it('reads a store headed by the EDK II variable GUID', async () => {
    const store = variableStore([{ name: 'Boot0001', guid: GUIDS.globalVariable, data: Buffer.from('entry'), attributes: 0x07 }], { authenticated: false });
    const out = await extractFiles(insydeFdcHandler, fdcRegion(store));
    expect(out.chunk?.meta).toMatchObject({ storeKind: 'guid', variables: 1 });
    expect(out.files.Boot0001!.toString()).toBe('entry');
  });

  it('rejects a region without a volume, truncated regions, and ignores a carved bare signature', async () => {
    const region = fdcRegion(vssStore([{ name: 'X', guid: OWNER, data: Buffer.alloc(20, 1) }]));
    const noVolume = Buffer.from(region);
    noVolume.write('XXXX', 8 + 0x28, 'latin1');
    await expect(insydeFdcHandler.chunk(new BufferReader(noVolume), 0)).rejects.toThrow(/no firmware volume/);
    await expect(insydeFdcHandler.chunk(new BufferReader(Buffer.concat([Buffer.alloc(8), noVolume])), 8)).resolves.toBeNull();
    await expect(insydeFdcHandler.chunk(new BufferReader(region.subarray(0, region.length - 1)), 0)).rejects.toThrow(/truncated/);
    await expectTruncationsRefused(insydeFdcHandler, region);
    await expectCorruptionsRefused(insydeFdcHandler, region, 60, (seed) => 1 + (seed % 6), 4);
  });
});
