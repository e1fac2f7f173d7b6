import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { uefiFvHandler } from '../../../../src/engine/unpack/boot/uefi/fv.js';
import { GUIDS, guidBytes, guidString } from '../../../../src/engine/unpack/boot/uefi/guid.js';
import { SECTION_TYPES } from '../../../../src/engine/unpack/boot/uefi/sections.js';
import { lzma } from '../../../../src/engine/unpack/codecs/blocks.js';
import { FormatError } from '../../../../src/engine/format-error.js';
import { BufferReader, FileReader } from '../../../../src/engine/unpack/reader.js';
import { corpus, haveShared } from '../../../support/shared.js';
import { runHandler, truncations, type Extracted } from '../extract-harness.js';
import { tianoCompress } from './tiano-encoder.js';
import { compressed, extendedSection, FFS3, ffsFile, guided, pe32, section, stream, ui, version, volume } from './uefi-builders.js';

const cleanups: Extracted[] = [];
afterAll(async () => Promise.all(cleanups.map((c) => c.cleanup())));
const run = async (...args: Parameters<typeof runHandler>) => {
  const out = await runHandler(...args);
  cleanups.push(out);
  return out;
};

const image = (tag: string) => Buffer.concat([Buffer.from('MZ'), Buffer.alloc(62), Buffer.from(`PE image ${tag} `.repeat(40))]);
const G = {
  a: '11111111-2222-3333-4444-555555555555',
  b: 'AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE',
  c: '01234567-89AB-CDEF-0123-456789ABCDEF',
  d: 'FEDCBA98-7654-3210-FEDC-BA9876543210',
  e: '0F0F0F0F-1E1E-2D2D-3C3C-4B4B4B4B4B4B',
  f: 'ABCDEF01-0000-1111-2222-333333333333',
  name: '48DB5E17-707C-472D-91CD-1613E7EF51B0',
};

function encode(kind: 'aloneEncoder' | 'rawEncoder', options: object, data: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    const enc = lzma().createStream(kind, options);
    enc.on('data', (c: Buffer) => parts.push(c)).on('end', () => resolve(Buffer.concat(parts))).on('error', reject);
    enc.end(data);
  });
}

/** LZMA as EDK II's LzmaCompress writes it: LZMA-alone with the real size in the header. */
async function edkLzma(data: Buffer): Promise<Buffer> {
  const packed = await encode('aloneEncoder', { preset: 1 }, data);
  packed.writeBigUInt64LE(BigInt(data.length), 5);
  return packed;
}

/** x86 code with CALL/JMP instructions, so the BCJ filter really converts something. */
const x86Code = Buffer.concat(Array.from({ length: 400 }, (_, i) => Buffer.from([0x55, 0xe8, i & 0xff, (i >> 8) & 0xff, 0, 0, 0x90, 0xe9, 0x10, 0, 0, 0, 0xc3])));

async function lzmaF86(data: Buffer): Promise<Buffer> {
  const raw = await encode('rawEncoder', { filters: [{ id: (lzma() as unknown as { FILTER_X86: number }).FILTER_X86 }, { id: lzma().FILTER_LZMA1, options: { dictSize: 1 << 16, lc: 3, lp: 0, pb: 2 } }] }, data);
  const header = Buffer.alloc(13, 0xff); // unknown size: the stream ends with its end marker
  header[0] = 0x5d;
  header.writeUInt32LE(1 << 16, 1);
  return Buffer.concat([header, raw]);
}

describe('uefi-fv', () => {
  it('names files by GUID and UI name and decodes every encapsulation', async () => {
    const lzmaInner = stream(pe32(image('lzma')), ui('LzmaDxe'));
    const efiInner = stream(pe32(image('efi')), ui('EfiDxe'));
    const tianoInner = stream(section(0x12, image('te')), ui('TianoPei'));
    const brotliInner = stream(pe32(image('brotli')), ui('BrotliDxe'));
    const vendorInner = stream(pe32(image('vendor')), ui('VendorDxe'));
    const brotliData = zlib.brotliCompressSync(brotliInner);
    const brotliHeader = Buffer.alloc(16);
    brotliHeader.writeBigUInt64LE(BigInt(brotliInner.length), 0);
    const fv = volume(
      [
        ffsFile(G.a, 0x07, stream(section(0x13, Buffer.from([8])), pe32(image('plain')), ui('PlainDxe'), version('2.5'))),
        ffsFile(G.b, 0x07, stream(guided(GUIDS.lzma, await edkLzma(lzmaInner)))),
        ffsFile(G.c, 0x06, stream(compressed(1, efiInner.length, tianoCompress(efiInner, 'efi')), guided(GUIDS.tiano, tianoCompress(tianoInner, 'tiano')))),
        // A vendor's Tiano stream in a standard compression section.
        ffsFile(G.name, 0x07, stream(compressed(1, vendorInner.length, tianoCompress(vendorInner, 'tiano')))),
        // ... and an EFI-variant stream under the Tiano GUID.
        ffsFile(G.name.replace('48', '49'), 0x07, stream(guided(GUIDS.tiano, tianoCompress(stream(pe32(image('swapped')), ui('SwappedDxe')), 'efi')))),
        ffsFile(G.d, 0x07, stream(guided(GUIDS.brotli, Buffer.concat([brotliHeader, brotliData])), guided(GUIDS.crc32, stream(section(0x19, Buffer.from('raw payload'))), 2))),
        ffsFile(G.e, 0x01, Buffer.from('raw file contents')),
        ffsFile(G.f, 0x02, stream(guided(GUIDS.lzmaF86, await lzmaF86(stream(pe32(x86Code), ui('F86')))), guided(G.a, Buffer.from('opaque')))),
      ],
      { name: G.name },
    );
    const out = await run(uefiFvHandler, new BufferReader(fv));
    expect(out.chunk).toMatchObject({ start: 0, end: fv.length, meta: { fileSystem: 'ffs2', fvName: G.name } });
    expect(out.entries.filter((e) => e.kind === 'file').map((e) => e.path)).toEqual([
      `${G.a}_PlainDxe/dxe.depex`,
      `${G.a}_PlainDxe/PlainDxe.efi`,
      `${G.b}_LzmaDxe/LzmaDxe.efi`,
      `${G.c}_EfiDxe/EfiDxe.efi`,
      `${G.c}_EfiDxe/EfiDxe.te`,
      `${G.name}_VendorDxe/VendorDxe.efi`,
      `${G.name.replace('48', '49')}_SwappedDxe/SwappedDxe.efi`,
      `${G.d}_BrotliDxe/BrotliDxe.efi`,
      `${G.d}_BrotliDxe/raw.bin`,
      `${G.e}/raw.bin`,
      `${G.f}_F86/F86.efi`,
      `${G.f}_F86/section-GUID_DEFINED.bin`,
    ]);
    expect(await out.read(`${G.a}_PlainDxe/PlainDxe.efi`)).toEqual(image('plain'));
    expect(await out.read(`${G.b}_LzmaDxe/LzmaDxe.efi`)).toEqual(image('lzma'));
    expect(await out.read(`${G.c}_EfiDxe/EfiDxe.efi`)).toEqual(image('efi'));
    expect(await out.read(`${G.c}_EfiDxe/EfiDxe.te`)).toEqual(image('te'));
    expect(await out.read(`${G.d}_BrotliDxe/BrotliDxe.efi`)).toEqual(image('brotli'));
    expect(await out.read(`${G.name}_VendorDxe/VendorDxe.efi`)).toEqual(image('vendor'));
    expect(await out.read(`${G.name.replace('48', '49')}_SwappedDxe/SwappedDxe.efi`)).toEqual(image('swapped'));
    expect((await out.read(`${G.d}_BrotliDxe/raw.bin`)).toString()).toBe('raw payload');
    expect((await out.read(`${G.e}/raw.bin`)).toString()).toBe('raw file contents');
    expect(await out.read(`${G.f}_F86/F86.efi`)).toEqual(x86Code);
    expect(out.entry(`${G.a}_PlainDxe`).meta.meta).toMatchObject({ guid: G.a, uiName: 'PlainDxe', fileType: 'DRIVER', version: '2.5' });
    expect(out.entry(`${G.b}_LzmaDxe/LzmaDxe.efi`).meta.meta).toMatchObject({ guid: G.b, uiName: 'LzmaDxe', fileType: 'DRIVER', sectionType: 'PE32' });
    expect(out.problems.map((p) => p.message)).toEqual([expect.stringMatching(/GUID-defined section 11111111-.*unknown encoding/)]);
  });

  it('extracts or records every leaf section type, and opens DISPOSABLE sections', async () => {
    const inner = volume([ffsFile(G.b, 0x07, stream(pe32(image('inner'))))]);
    const bodies = {
      pic: image('pic'),
      te: image('te'),
      csm16: Buffer.from('real-mode CSM16 code '.repeat(8)),
      freeform: Buffer.from('freeform subtype data'),
      // Dependency expressions: TRUE END, FALSE END, TRUE FALSE OR END.
      peiDepex: Buffer.from([0x06, 0x08]),
      dxeDepex: Buffer.from([0x07, 0x08]),
      mmDepex: Buffer.from([0x06, 0x07, 0x04, 0x08]),
      raw: Buffer.from('raw section bytes'),
      disposableRaw: Buffer.from('raw bytes inside a disposable section'),
      oem: Buffer.from('an OEM-defined section type'),
    };
    const sections = stream(
      pe32(image('pe')),
      section(0x11, bodies.pic),
      section(0x12, bodies.te),
      section(0x16, bodies.csm16),
      section(0x17, inner),
      section(0x18, Buffer.concat([guidBytes(G.c), bodies.freeform])),
      section(0x1b, bodies.peiDepex),
      section(0x13, bodies.dxeDepex),
      section(0x1c, bodies.mmDepex),
      version('7.1'),
      ui('AllTypes'),
      section(0x19, bodies.raw),
      section(0x03, stream(section(0x19, bodies.disposableRaw), pe32(image('disposable')))),
      section(0xe0, bodies.oem),
    );
    const out = await run(uefiFvHandler, new BufferReader(volume([ffsFile(G.a, 0x07, sections)])));
    const dir = `${G.a}_AllTypes`;
    const expected: Array<[string, string, Buffer]> = [
      ['AllTypes.efi', 'PE32', image('pe')],
      ['AllTypes.pic', 'PIC', bodies.pic],
      ['AllTypes.te', 'TE', bodies.te],
      ['csm16.bin', 'COMPATIBILITY16', bodies.csm16],
      ['volume.fv', 'FIRMWARE_VOLUME_IMAGE', inner],
      [`${G.c}.bin`, 'FREEFORM_SUBTYPE_GUID', bodies.freeform],
      ['pei.depex', 'PEI_DEPEX', bodies.peiDepex],
      ['dxe.depex', 'DXE_DEPEX', bodies.dxeDepex],
      ['mm.depex', 'MM_DEPEX', bodies.mmDepex],
      ['raw.bin', 'RAW', bodies.raw],
      ['raw-1.bin', 'RAW', bodies.disposableRaw],
      ['AllTypes-1.efi', 'PE32', image('disposable')],
      ['section-0xe0.bin', '0xe0', bodies.oem],
    ];
    expect(out.entries.filter((e) => e.kind === 'file').map((e) => e.path)).toEqual(expected.map(([name]) => `${dir}/${name}`));
    for (const [name, sectionType, body] of expected) {
      expect(await out.read(`${dir}/${name}`)).toEqual(body);
      expect(out.entry(`${dir}/${name}`).meta.meta).toMatchObject({ guid: G.a, uiName: 'AllTypes', sectionType });
    }
    expect(out.entry(`${dir}/${G.c}.bin`).meta.meta).toMatchObject({ subtypeGuid: G.c });
    // VERSION and USER_INTERFACE are recorded on the file's folder, not written.
    expect(out.entry(dir).meta.meta).toMatchObject({ guid: G.a, uiName: 'AllTypes', version: '7.1', fileType: 'DRIVER' });
    expect(out.problems).toEqual([]);
    // Every type the parser names is covered here or by the encapsulation test above.
    const covered = [...expected.map(([, type]) => type), 'COMPRESSION', 'GUID_DEFINED', 'DISPOSABLE', 'VERSION', 'USER_INTERFACE'];
    expect(Object.values(SECTION_TYPES).filter((type) => !covered.includes(type))).toEqual([]);
  });

  it('reads FFS3 large files and extended section headers', async () => {
    const fv = volume([ffsFile(G.a, 0x09, stream(extendedSection(0x10, image('big')), ui('BigApp')), true), ffsFile(G.b, 0x07, stream(pe32(image('small'))))], { fileSystem: FFS3 });
    const out = await run(uefiFvHandler, new BufferReader(fv));
    expect(out.chunk.meta).toMatchObject({ fileSystem: 'ffs3' });
    expect(out.entries.filter((e) => e.kind === 'file').map((e) => e.path)).toEqual([`${G.a}_BigApp/BigApp.efi`, `${G.b}/image.efi`]);
    expect(await out.read(`${G.a}_BigApp/BigApp.efi`)).toEqual(image('big'));
    expect(out.entry(`${G.a}_BigApp`).meta.meta).toMatchObject({ fileType: 'APPLICATION' });
    expect(out.problems).toEqual([]);
  });

  it('checks the data checksum of files that carry one', async () => {
    const body = stream(pe32(image('sum')), ui('Summed'));
    const good = volume([ffsFile(G.a, 0x07, body, false, true)]);
    const ok = await run(uefiFvHandler, new BufferReader(good));
    expect(ok.problems).toEqual([]);
    const bad = Buffer.from(good);
    bad[bad.indexOf(Buffer.from('PE image sum')) + 3] ^= 0x20;
    const out = await run(uefiFvHandler, new BufferReader(bad));
    expect(out.problems.map((p) => p.message)).toEqual([`FFS file ${G.a}: data checksum mismatch`]);
  });

  it('reads vendor volumes with the FFS2 file layout (Apple boot volume)', async () => {
    const fv = volume([ffsFile(G.a, 0x07, stream(pe32(image('apple')), ui('AppleDxe')))], { fileSystem: '04ADEEAD-61FF-4D31-B6BA-64F8BF901F5A' });
    const out = await run(uefiFvHandler, new BufferReader(fv));
    expect(out.chunk.meta).toMatchObject({ fileSystem: 'apple-boot-volume' });
    expect(await out.read(`${G.a}_AppleDxe/AppleDxe.efi`)).toEqual(image('apple'));
  });

  it('keeps a file whose sections are corrupt raw, and stops at a file that overruns the volume', async () => {
    const badSections = Buffer.from(stream(pe32(image('x')), ui('Bad')));
    badSections.writeUIntLE(0xfff0, 0, 3);
    const fv = volume([ffsFile(G.a, 0x07, badSections), ffsFile(G.b, 0x07, stream(pe32(image('y'))))]);
    const out = await run(uefiFvHandler, new BufferReader(fv));
    expect(out.entries.filter((e) => e.kind === 'file').map((e) => e.path)).toEqual([`${G.a}/raw.bin`, `${G.b}/image.efi`]);
    expect(out.problems[0]?.message).toMatch(/does not fit/);
    const overrun = Buffer.from(fv);
    overrun.writeUIntLE(0xfffff0, 0x48 + 20, 3);
    const cut = await run(uefiFvHandler, new BufferReader(overrun));
    expect(cut.entries).toEqual([]);
    expect(cut.problems[0]?.message).toMatch(/does not fit the volume/);
  });

  it('rejects bad checksums and truncation with a reason; mutations never crash', async () => {
    const fv = volume([ffsFile(G.a, 0x07, stream(guided(GUIDS.lzma, await edkLzma(stream(pe32(image('m')), ui('M'))))))]);
    const badSum = Buffer.from(fv);
    badSum[0x30 + 3] ^= 1;
    await expect(uefiFvHandler.chunk(new BufferReader(badSum), 0)).rejects.toThrow(/checksum mismatch/);
    await expect(uefiFvHandler.chunk(new BufferReader(fv.subarray(0, 0x100)), 0)).rejects.toThrow(/truncated/);
    for (const part of truncations(fv)) {
      const result = await uefiFvHandler.chunk(new BufferReader(part), 0).catch((e: unknown) => e);
      expect(result === null || result instanceof FormatError).toBe(true);
    }
    for (let i = 0; i < 150; i++) {
      const mutated = Buffer.from(fv);
      mutated[0x48 + ((i * 131) % (fv.length - 0x48))] = (i * 97) & 0xff;
      const result = await run(uefiFvHandler, new BufferReader(mutated)).catch((e: unknown) => e);
      expect(result instanceof FormatError || (result as Extracted).entries !== undefined).toBe(true);
    }
  });

  it.runIf(haveShared('corpus', 'OVMF_CODE.secboot.fd'))('unpacks OVMF: the LZMA section into PEI and DXE volumes, their modules, SECFV', async () => {
    const reader = await FileReader.open(corpus('OVMF_CODE.secboot.fd'));
    const outer = await run(uefiFvHandler, reader);
    expect(outer.chunk).toMatchObject({ start: 0, end: 0x1ac000, meta: { fvName: '48DB5E17-707C-472D-91CD-1613E7EF51B0' } });
    const volumes = outer.entries.filter((e) => e.path.endsWith('.fv'));
    expect(volumes.map((v) => [v.path, v.size])).toEqual([
      ['9E21FD93-9C72-4C15-8C4B-E77F1DB2D792/volume.fv', 917504],
      ['9E21FD93-9C72-4C15-8C4B-E77F1DB2D792/volume-1.fv', 13631488],
    ]);
    const modules: string[] = [];
    for (const v of volumes) {
      const innerReader = await FileReader.open(`${outer.root}/${v.path}`);
      const inner = await run(uefiFvHandler, innerReader);
      await innerReader.close();
      modules.push(...inner.entries.filter((e) => /\.(efi|te)$/.test(e.path)).map((e) => e.path));
      expect(inner.problems).toEqual([]);
    }
    // 7-Zip's UEFI reader lists the same 130 images.
    expect(modules).toHaveLength(130);
    expect(modules).toContain('52C05B14-0B98-496C-BC3B-04B50211D680_PeiCore/PeiCore.efi');
    expect(modules).toContain('D6A2CB7F-6A18-4E2F-B43B-9920A733700A_DxeCore/DxeCore.efi');
    const sec = await run(uefiFvHandler, reader, 0x1ac000);
    expect(sec.chunk.end).toBe(1966080);
    expect(sec.entry('DF1CCEF6-F301-4A63-9661-FC6030DCC880_SecMain/SecMain.efi').meta.meta).toMatchObject({ fileType: 'SECURITY_CORE', sectionType: 'PE32' });
    await reader.close();
  });

  it.runIf(haveShared('corpus', 'OVMF_VARS.secboot.fd'))('keeps the body of an NV-data volume for the variable store reader', async () => {
    const reader = await FileReader.open(corpus('OVMF_VARS.secboot.fd'));
    const out = await run(uefiFvHandler, reader);
    expect(out.chunk).toMatchObject({ end: 0x20000, meta: { fileSystem: 'nvram' } });
    expect(out.entries.map((e) => [e.path, e.size])).toEqual([['nvram.bin', 0x20000 - 0x48]]);
    expect(guidString(await out.read('nvram.bin'))).toBe(GUIDS.authVariableStore);
    await reader.close();
  });

  it.runIf(haveShared('corpus', 'ApolloLake-Fsp.fd'))('reads the three FSP volumes', async () => {
    const reader = await FileReader.open(corpus('ApolloLake-Fsp.fd'));
    const ends: number[] = [];
    const images: string[] = [];
    for (let at = 0; at < reader.size; ) {
      const out = await run(uefiFvHandler, reader, at);
      ends.push(out.chunk.end);
      images.push(...out.entries.filter((e) => /\.(efi|te)$/.test(e.path)).map((e) => e.path.split('/')[1]!));
      // The FSP_INFO_HEADER file is of type RAW; its bytes are a RAW section holding 'FSPH'.
      expect((await out.read('912740BE-2284-4734-B971-84B027353F0C/raw.bin')).toString('latin1', 4, 8)).toBe('FSPH');
      at = out.chunk.end;
    }
    expect(ends).toEqual([0x2a000, 0x83000, 0x85000]);
    expect(images).toEqual(expect.arrayContaining(['FspInit.efi', 'SiInit.efi', 'MemoryInit.te', 'FspInitPreMem.te', 'PeiCore.te']));
    await reader.close();
  });
});
