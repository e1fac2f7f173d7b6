// Phoenix EVSA stores built byte by byte (no Phoenix image is in ../shared/corpus): GUID, name and data entries
// joined by id, superseded data, extended data entries and checksums.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { phoenixEvsaHandler } from '../../../../src/engine/unpack/boot/nvram/phoenix-evsa.js';
import { GUIDS } from '../../../../src/engine/unpack/boot/uefi/guid.js';
import { unpack } from '../../../../src/engine/unpack/driver.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { expectTruncationsRefused, extractFiles } from '../extract-harness.js';
import { expectCorruptionsRefused } from '../filesystems/fs-image-harness.js';
import { evsaData, evsaGuid, evsaName, evsaStore } from './nvram-builders.js';

const OWNER = '11111111-2222-3333-4444-555555555555';
const big = Buffer.alloc(70000, 0x5a);

function sample(): Buffer {
  return evsaStore([
    evsaGuid(1, GUIDS.globalVariable),
    evsaGuid(2, GUIDS.imageSecurityDatabase),
    evsaName(1, 'Timeout'),
    evsaName(2, 'dbx'),
    evsaData(1, 1, Buffer.from([5, 0]), { superseded: true }),
    evsaData(1, 1, Buffer.from([3, 0])),
    evsaData(2, 2, big, { attributes: 0x27, extended: true }),
    evsaData(9, 1, Buffer.from('orphan')),
    Buffer.from([0xe5, 0x00, 0x08, 0x00, 1, 2, 3, 4]), // an entry of a type not read here, stepped over
    evsaName(3, 'Last'),
    evsaData(1, 3, Buffer.from('after the unknown entry')),
  ]);
}

describe('phoenix-evsa', () => {
  it('joins data entries to their names and GUIDs, superseded values apart', async () => {
    const store = sample();
    const out = await extractFiles(phoenixEvsaHandler, Buffer.concat([Buffer.alloc(0), store, Buffer.alloc(4)]));
    expect(out.chunk).toMatchObject({ start: 0, end: store.length, meta: { variables: 3, deleted: 1, unnamed: 1, checksumOk: true } });
    expect(out.entries.map((e) => e.path)).toEqual(['deleted/Timeout', 'Timeout', 'dbx', 'Last']);
    expect(out.files.Timeout!.equals(Buffer.from([3, 0]))).toBe(true);
    expect(out.files.dbx!.equals(big)).toBe(true);
    expect(out.entries.find((e) => e.path === 'dbx')!.meta?.meta).toMatchObject({ name: 'dbx', vendorGuid: GUIDS.imageSecurityDatabase, attributes: ['NV', 'BS', 'RT', 'TA'], state: 'active' });
    expect(out.problems.map((p) => p.message)).toEqual([expect.stringMatching(/1 data entries with an unknown name or GUID id/)]);
  });

  it('warns on entry checksum mismatches', async () => {
    const store = evsaStore([evsaGuid(1, OWNER), evsaName(1, 'A'), evsaData(1, 1, Buffer.from('a'))]);
    store[20 + 22 + 1] ^= 0x10; // checksum of the name entry
    const out = await extractFiles(phoenixEvsaHandler, store);
    expect(out.files.A!.toString()).toBe('a');
    expect(out.problems.map((p) => p.message)).toEqual([expect.stringMatching(/entry at 0x2a: checksum mismatch/)]);
  });

  it('rejects truncated stores and entries running past the store', async () => {
    const store = sample();
    await expect(phoenixEvsaHandler.chunk(new BufferReader(store.subarray(0, 100)), 0)).rejects.toThrow(/truncated/);
    const overrun = evsaStore([evsaGuid(1, OWNER), evsaData(1, 1, Buffer.alloc(8))]);
    overrun.writeUInt16LE(0x400, 20 + 22 + 2); // size of the data entry
    await expect(phoenixEvsaHandler.chunk(new BufferReader(overrun), 0)).rejects.toThrow(/runs past the store/);
    const notStore = Buffer.from(store);
    notStore[0] = 0xed;
    await expect(phoenixEvsaHandler.chunk(new BufferReader(notStore), 0)).resolves.toBeNull();
    await expectTruncationsRefused(phoenixEvsaHandler, store);
    await expectCorruptionsRefused(phoenixEvsaHandler, store, 60, (seed) => 1 + (seed % 6), 8);
  });

  it('is carved from the middle of a flash image by the driver (its signature sits 4 bytes in)', async () => {
    const store = sample();
    const dir = await mkdtemp(join(tmpdir(), 'firmscope-evsa-'));
    try {
      await writeFile(join(dir, 'flash.bin'), Buffer.concat([Buffer.alloc(0x1003, 0xff), store, Buffer.alloc(0x100, 0xff)]));
      const result = await unpack(join(dir, 'flash.bin'), join(dir, 'out'));
      const nodes = result.files.filter((f) => f.format === 'phoenix-evsa');
      expect(nodes.map((f) => [f.fsPath, f.offset])).toEqual([['/deleted/Timeout', 0x1003], ['/Timeout', 0x1003], ['/dbx', 0x1003], ['/Last', 0x1003]]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
