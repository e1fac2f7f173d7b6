import { describe, expect, it } from 'vitest';
import { uefiVarstoreHandler } from '../../../../src/engine/unpack/boot/nvram/uefi-varstore.js';
import { GUIDS } from '../../../../src/engine/unpack/boot/uefi/guid.js';
import { BufferReader, FileReader } from '../../../../src/engine/unpack/reader.js';
import { corpus, haveShared } from '../../../support/shared.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';
import { variableStore } from './efi-builders.js';

const OWNER = '11111111-2222-3333-4444-555555555555';

describe('uefi-varstore', () => {
  it('extracts active variables by name and deleted ones apart, with their facts', async () => {
    for (const authenticated of [true, false]) {
      const store = variableStore(
        [
          { name: 'BootOrder', guid: GUIDS.globalVariable, data: Buffer.from([0, 0, 1, 0]) },
          { name: 'Boot0000', guid: GUIDS.globalVariable, data: Buffer.from('old entry'), state: 0x3c },
          { name: 'Boot0000', guid: GUIDS.globalVariable, data: Buffer.from('new entry') },
          { name: 'Boot0000', guid: OWNER, data: Buffer.from('same name, other vendor') },
        ],
        { authenticated },
      );
      const out = await runHandler(uefiVarstoreHandler, new BufferReader(Buffer.concat([store, Buffer.alloc(16)])));
      expect(out.chunk).toMatchObject({ start: 0, end: store.length, meta: { authenticated, variables: 3, deleted: 1 } });
      expect(out.entries.map((e) => e.path)).toEqual(['BootOrder', 'deleted/Boot0000', 'Boot0000', `Boot0000_${OWNER}`]);
      expect((await out.read('Boot0000')).toString()).toBe('new entry');
      expect((await out.read('deleted/Boot0000')).toString()).toBe('old entry');
      expect(out.entry('BootOrder').meta.meta).toMatchObject({
        name: 'BootOrder',
        vendorGuid: GUIDS.globalVariable,
        attributes: ['NV', 'BS', 'RT', 'TA'],
        ...(authenticated ? { monotonicCount: 5, timestamp: '2024-02-29T12:00:00Z' } : {}),
      });
      // Every fact of the variable and nothing else (data position and size are not facts): the same as the vendor stores.
      expect(out.entry('deleted/Boot0000').meta.meta).toEqual({
        name: 'Boot0000',
        vendorGuid: GUIDS.globalVariable,
        attributes: ['NV', 'BS', 'RT', 'TA'],
        state: 'deleted',
        ...(authenticated ? { monotonicCount: 5, timestamp: '2024-02-29T12:00:00Z', pubKeyIndex: 0 } : {}),
      });
      await out.cleanup();
    }
  });

  it('rejects unformatted, truncated and overrunning stores with a reason', async () => {
    const store = variableStore([{ name: 'X', guid: OWNER, data: Buffer.alloc(40, 1) }]);
    const unformatted = Buffer.from(store);
    unformatted[20] = 0xff;
    await expect(uefiVarstoreHandler.chunk(new BufferReader(unformatted), 0)).rejects.toThrow(/not formatted/);
    // Past offset 0 the store GUID alone is no store (variable drivers hold it as a constant): quietly not one.
    await expect(uefiVarstoreHandler.chunk(new BufferReader(Buffer.concat([Buffer.alloc(16), unformatted])), 16)).resolves.toBeNull();
    expect(await uefiVarstoreHandler.chunk(new BufferReader(Buffer.concat([Buffer.alloc(16), store])), 16)).toMatchObject({ start: 16, end: 16 + store.length });
    await expect(uefiVarstoreHandler.chunk(new BufferReader(store.subarray(0, 60)), 0)).rejects.toThrow(/truncated/);
    const overrun = Buffer.from(store);
    overrun.writeUInt32LE(0xffff, 28 + 40); // data size of the first variable
    await expect(uefiVarstoreHandler.chunk(new BufferReader(overrun), 0)).rejects.toThrow(/runs past the store/);
    await expectTruncationsRefused(uefiVarstoreHandler, store);
  });

  it.runIf(haveShared('corpus', 'OVMF_VARS.secboot.fd'))('reads the Secure Boot variables of OVMF_VARS', async () => {
    const reader = await FileReader.open(corpus('OVMF_VARS.secboot.fd'));
    // The store follows the 0x48-byte header of the NV-data firmware volume.
    const out = await runHandler(uefiVarstoreHandler, reader, 0x48);
    expect(out.chunk).toMatchObject({ start: 0x48, end: 0x48 + 0xdfb8, meta: { authenticated: true, variables: 6, deleted: 0 } });
    expect(out.entries.map((e) => [e.path, e.size])).toEqual([
      ['CustomMode', 1],
      ['KEK', 2536],
      ['PK', 976],
      ['SecureBootEnable', 1],
      ['db', 3143],
      ['dbx', 10444],
    ]);
    expect(out.entry('db').meta.meta).toMatchObject({ vendorGuid: GUIDS.imageSecurityDatabase, timestamp: '2011-10-19T18:41:42Z' });
    await out.cleanup();
    await reader.close();
  });
});
