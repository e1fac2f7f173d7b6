// AMI NVAR stores built byte by byte (no AMI image is in ../shared/corpus): GUID-store indices and local GUIDs,
// ASCII and UCS-2 names, update chains of data-only entries, deleted entries, extended headers with checksum,
// timestamp and hash, a store carved from inside a larger file, and the whole path from a firmware volume's NVAR
// store file down to the certificates of db.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { amiNvarHandler } from '../../../../src/engine/unpack/boot/nvram/ami-nvar.js';
import { GUIDS } from '../../../../src/engine/unpack/boot/uefi/guid.js';
import { unpack } from '../../../../src/engine/unpack/driver.js';
import { FormatError } from '../../../../src/engine/format-error.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { expectTruncationsRefused, extractFiles } from '../extract-harness.js';
import { expectCorruptionsRefused } from '../filesystems/fs-image-harness.js';
import { selfSignedDer, signatureList } from './efi-builders.js';
import { NVAR, nvarStore, type NvarSpec } from './nvram-builders.js';
import { ffsFile, volume } from './uefi-builders.js';

const OWNER = '11111111-2222-3333-4444-555555555555';
const SETUP_GUID = 'EC87D643-EBA4-4BB5-A1E5-3F3E36B20DA9';
const NVAR_STORE_FILE = 'CEF5B9A3-476D-497F-9FDC-E98143E0422C';

function sampleSpecs(db: Buffer): NvarSpec[] {
  return [
    /* 0 */ { name: 'BootOrder', guidIndex: 0, attributes: NVAR.runtime, data: Buffer.from([0, 0, 1, 0]) },
    /* 1 */ { name: 'Setup', guid: SETUP_GUID, attributes: NVAR.asciiName, data: Buffer.from('setup v1'), next: 2 },
    /* 2 */ { data: Buffer.from('setup v2'), next: 4 },
    /* 3 */ { name: 'db', guidIndex: 1, attributes: NVAR.runtime | NVAR.authWrite, data: db,
      ext: { attributes: 0x21, timestamp: 0x1122334455667788n, hash: Buffer.alloc(32, 0xab) } },
    /* 4 */ { data: Buffer.from('setup v3'), ext: { attributes: 0x01 } },
    /* 5 */ { name: 'Gone', guidIndex: 0, deleted: true, data: Buffer.from('deleted value') },
    /* 6 */ { data: Buffer.from('nobody links here') },
    /* 7 */ { name: 'OldVendor', guidIndex: 2, deleted: true, data: Buffer.from('x') },
  ];
}

describe('ami-nvar', () => {
  it('extracts variables by name with GUIDs from the GUID store, update chains and deleted entries', async () => {
    const db = signatureList(GUIDS.certSha256, OWNER, [Buffer.alloc(32, 7)]);
    // GUID 2 is named by a deleted variable only.
    const store = nvarStore(sampleSpecs(db), [GUIDS.globalVariable, GUIDS.imageSecurityDatabase, OWNER]);
    const out = await extractFiles(amiNvarHandler, store);
    expect(out.chunk).toMatchObject({ start: 0, end: store.length, meta: { variables: 3, deleted: 4, guids: 2, unreadable: 1 } });
    expect(out.entries.map((e) => e.path)).toEqual(['BootOrder', 'deleted/Setup', `deleted/Setup_${SETUP_GUID}`, 'Setup', 'db', 'deleted/Gone', 'deleted/OldVendor']);
    expect(out.files.Setup!.toString()).toBe('setup v3');
    expect(out.files['deleted/Setup']!.toString()).toBe('setup v1');
    expect(out.files['deleted/Gone']!.toString()).toBe('deleted value');
    expect(out.files.db!.equals(db)).toBe(true);
    expect(out.files.BootOrder!.equals(Buffer.from([0, 0, 1, 0]))).toBe(true);
    const meta = (path: string) => out.entries.find((e) => e.path === path)!.meta?.meta;
    expect(meta('BootOrder')).toMatchObject({ name: 'BootOrder', vendorGuid: GUIDS.globalVariable, attributes: ['NV', 'BS', 'RT'], state: 'active' });
    expect(meta('db')).toMatchObject({ vendorGuid: GUIDS.imageSecurityDatabase, attributes: ['NV', 'BS', 'RT', 'TA'] });
    expect(meta('deleted/OldVendor')).toMatchObject({ vendorGuid: OWNER, state: 'deleted' });
    expect(meta('Setup')).toMatchObject({ vendorGuid: SETUP_GUID, attributes: ['NV', 'BS'], nvarAttributes: ['data-only', 'extended-header', 'valid'] });
    expect(out.problems).toEqual([]);
  });

  it('warns on a checksum mismatch and keeps the variable', async () => {
    const store = nvarStore([{ name: 'X', guid: OWNER, data: Buffer.from('x'), ext: { attributes: 0x01, badChecksum: true } }], []);
    const out = await extractFiles(amiNvarHandler, store);
    expect(out.files.X!.toString()).toBe('x');
    expect(out.problems.map((p) => p.message)).toEqual([expect.stringMatching(/checksum mismatch/)]);
  });

  it('finds a carved store up to the end of its GUID store', async () => {
    const store = nvarStore([{ name: 'Lang', guidIndex: 0, data: Buffer.from('eng') }], [GUIDS.globalVariable]);
    const image = Buffer.concat([Buffer.alloc(40, 0x11), store, Buffer.alloc(30, 0x22)]);
    const out = await extractFiles(amiNvarHandler, image, 40);
    expect(out.chunk).toMatchObject({ start: 40, end: 40 + store.length });
    expect(out.entries.map((e) => [e.path, e.meta?.meta?.vendorGuid])).toEqual([['Lang', GUIDS.globalVariable]]);
    // 'NVAR' as a constant in code is not a store.
    const code = Buffer.concat([Buffer.alloc(16, 0x90), Buffer.from('NVAR'), Buffer.from([0x05, 0x00, 0xff, 0xff, 0xff, 0x00]), Buffer.alloc(32, 0xc3)]);
    await expect(amiNvarHandler.chunk(new BufferReader(code), 16)).resolves.toBeNull();
  });

  it('rejects truncated entries and a GUID store cut off or overlapping the entries', async () => {
    const store = nvarStore([{ name: 'Lang', guidIndex: 1, data: Buffer.alloc(40, 1) }], [GUIDS.globalVariable, OWNER]);
    await expect(amiNvarHandler.chunk(new BufferReader(store.subarray(0, 30)), 0)).rejects.toThrow(/truncated/);
    const full = nvarStore([{ name: 'Lang', guidIndex: 3, data: Buffer.alloc(40, 1) }], [], 70);
    await expect(amiNvarHandler.chunk(new BufferReader(full), 0)).rejects.toThrow(/overlaps the entries/);
    const erased = nvarStore([{ name: 'Lang', guidIndex: 0, data: Buffer.alloc(40, 1) }], [], 200);
    await expect(amiNvarHandler.chunk(new BufferReader(erased), 0)).rejects.toThrow(FormatError);
    // A store at the start of a file fills it: a cut inside the GUID store alone cannot be told from a whole store.
    await expectTruncationsRefused(amiNvarHandler, store, (chunk, cut) => chunk.end === cut.length && cut.length > store.length - 16);
    await expectCorruptionsRefused(amiNvarHandler, nvarStore(sampleSpecs(Buffer.alloc(64, 3)), [GUIDS.globalVariable, OWNER]), 60, (seed) => 1 + (seed % 6), 4);
  });

  it('unpacks an NVAR store file of a firmware volume down to the certificates in db', async () => {
    const cert = selfSignedDer('NVAR db test');
    const db = signatureList(GUIDS.certX509, OWNER, [cert]);
    const store = nvarStore(sampleSpecs(db), [GUIDS.globalVariable, GUIDS.imageSecurityDatabase], 0x1000);
    const fv = volume([ffsFile(NVAR_STORE_FILE, 0x01, store)]);
    const dir = await mkdtemp(join(tmpdir(), 'firmscope-nvar-'));
    try {
      await writeFile(join(dir, 'flash.bin'), fv);
      const result = await unpack(join(dir, 'flash.bin'), join(dir, 'out'));
      const dbNode = result.files.find((f) => f.path.endsWith('/db'));
      expect(dbNode).toMatchObject({ format: 'ami-nvar', size: db.length });
      const certNode = result.files.find((f) => f.parent === dbNode!.path + '_extract' || f.path.startsWith(`${dbNode!.path}_extract/`));
      expect(certNode?.format).toBe('efi-signature-list');
      expect(result.stats.formats['ami-nvar']).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
