// '$VSS' (Insyde), '$SVS' (Apple) and VSS2 (Phoenix) stores built byte by byte (no such image is in
// ../shared/corpus), mixing the plain, authenticated, Apple-CRC and Intel-legacy variable layouts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nvramVssHandler } from '../../../../src/engine/unpack/boot/nvram/vss.js';
import { GUIDS } from '../../../../src/engine/unpack/boot/uefi/guid.js';
import { unpack } from '../../../../src/engine/unpack/driver.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { expectTruncationsRefused, extractFiles } from '../extract-harness.js';
import { expectCorruptionsRefused } from '../filesystems/fs-image-harness.js';
import { signatureList } from './efi-builders.js';
import { fdcRegion, vssStore, type VssSpec } from './nvram-builders.js';
import { volume } from './uefi-builders.js';

const OWNER = '11111111-2222-3333-4444-555555555555';
const db = signatureList(GUIDS.certSha256, OWNER, [Buffer.alloc(32, 9)]);
const VARS: VssSpec[] = [
  { name: 'Lang', guid: GUIDS.globalVariable, data: Buffer.from('eng') },
  { name: 'db', guid: GUIDS.imageSecurityDatabase, data: db, layout: 'auth' },
  { name: 'Lang', guid: GUIDS.globalVariable, data: Buffer.from('fra'), state: 0x3c },
  { name: 'SystemAudioVolume', guid: OWNER, data: Buffer.from([0x42]), layout: 'apple' },
  { name: 'IntelSetup', guid: OWNER, data: Buffer.from('legacy data'), layout: 'intel' },
];

describe('nvram-vss', () => {
  for (const [label, options] of [['$VSS', {}], ['$VSS', { align: 8 }], ['$SVS', { signature: '$SVS' }], ['VSS2', { vss2: true }]] as const) {
    it(`reads a ${label} store with mixed variable layouts ${JSON.stringify(options)}`, async () => {
      const store = vssStore(VARS, options);
      const out = await extractFiles(nvramVssHandler, Buffer.concat([store, Buffer.alloc(8)]));
      expect(out.chunk).toMatchObject({ start: 0, end: store.length, meta: { signature: label, variables: 4, deleted: 1, layouts: ['plain', 'auth', 'apple', 'intel'] } });
      expect(out.entries.map((e) => e.path)).toEqual(['Lang', 'db', 'deleted/Lang', 'SystemAudioVolume', 'IntelSetup']);
      expect(out.files.db!.equals(db)).toBe(true);
      expect(out.files['deleted/Lang']!.toString()).toBe('fra');
      expect(out.files.IntelSetup!.toString()).toBe('legacy data');
      const meta = (path: string) => out.entries.find((e) => e.path === path)!.meta?.meta;
      expect(meta('db')).toMatchObject({ name: 'db', vendorGuid: GUIDS.imageSecurityDatabase, attributes: ['NV', 'BS', 'RT', 'TA'], monotonicCount: 7, timestamp: '2023-06-01T00:00:00Z', pubKeyIndex: 3 });
      expect(meta('SystemAudioVolume')).toMatchObject({ vendorGuid: OWNER, layout: 'apple', crc32Ok: true });
      expect(meta('Lang')).toMatchObject({ vendorGuid: GUIDS.globalVariable, attributes: ['NV', 'BS', 'RT'], state: 'active' });
    });
  }

  it('rejects unformatted, truncated and overrunning stores; ignores an unformatted carved signature', async () => {
    const store = vssStore([{ name: 'X', guid: OWNER, data: Buffer.alloc(40, 1) }]);
    const unformatted = Buffer.from(store);
    unformatted[8] = 0xff;
    await expect(nvramVssHandler.chunk(new BufferReader(unformatted), 0)).rejects.toThrow(/not formatted/);
    await expect(nvramVssHandler.chunk(new BufferReader(Buffer.concat([Buffer.alloc(4), unformatted])), 4)).resolves.toBeNull();
    await expect(nvramVssHandler.chunk(new BufferReader(store.subarray(0, 60)), 0)).rejects.toThrow(/truncated/);
    const overrun = Buffer.from(store);
    overrun.writeUInt32LE(0xffff, 16 + 12); // data size of the first variable
    await expect(nvramVssHandler.chunk(new BufferReader(overrun), 0)).rejects.toThrow(/runs past the store/);
    await expectTruncationsRefused(nvramVssHandler, store);
    await expectTruncationsRefused(nvramVssHandler, vssStore(VARS, { vss2: true }));
    await expectCorruptionsRefused(nvramVssHandler, vssStore(VARS), 60, (seed) => 1 + (seed % 6), 4);
  });

  it('is found inside an NVRAM firmware volume, next to an _FDC region, by the driver', async () => {
    const nvram = volume([vssStore(VARS), fdcRegion(vssStore([{ name: 'Factory', guid: OWNER, data: Buffer.from('defaults') }]))], { fileSystem: GUIDS.nvData });
    const dir = await mkdtemp(join(tmpdir(), 'firmscope-vss-'));
    try {
      await writeFile(join(dir, 'flash.bin'), nvram);
      const result = await unpack(join(dir, 'flash.bin'), join(dir, 'out'));
      expect(result.stats.formats).toMatchObject({ 'uefi-fv': 1, 'nvram-vss': 1, 'insyde-fdc': 1 });
      const byFormat = (format: string) => result.files.filter((f) => f.format === format).map((f) => f.path.split('/').pop());
      expect(byFormat('nvram-vss')).toEqual(['Lang', 'db', 'Lang', 'SystemAudioVolume', 'IntelSetup']);
      expect(byFormat('insyde-fdc')).toEqual(['Factory']);
      expect(result.stats.formats['efi-signature-list']).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
