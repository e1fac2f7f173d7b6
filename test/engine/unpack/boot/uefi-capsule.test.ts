import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { uefiCapsuleHandler } from '../../../../src/engine/unpack/boot/uefi/capsule.js';
import { guidBytes } from '../../../../src/engine/unpack/boot/uefi/guid.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';
import { ffsFile, pe32, stream, volume } from './uefi-builders.js';

const work = mkdtempSync(join(tmpdir(), 'capsule-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const FMP = '6DCBD5ED-E82D-4C44-BDA1-7194199AD92A';
const TYPE_ID = '12345678-ABCD-4EF0-9876-0123456789AB';

function capsule(guid: string, body: Buffer, flags = 0x50000, extra = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(28);
  guidBytes(guid).copy(header, 0);
  header.writeUInt32LE(28 + extra.length, 16);
  header.writeUInt32LE(flags, 20);
  header.writeUInt32LE(28 + extra.length + body.length, 24);
  return Buffer.concat([header, extra, body]);
}

/** A PKCS#7 detached signature over `data`, made by openssl. */
function pkcs7(data: Buffer): Buffer {
  writeFileSync(join(work, 'data'), data);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(work, 'k.pem'), '-subj', '/CN=Capsule Signer', '-out', join(work, 'c.pem')], { stdio: 'pipe' });
  execFileSync('openssl', ['smime', '-sign', '-binary', '-in', join(work, 'data'), '-signer', join(work, 'c.pem'), '-inkey', join(work, 'k.pem'), '-outform', 'DER', '-out', join(work, 's.p7')], { stdio: 'pipe' });
  return readFileSync(join(work, 's.p7'));
}

/** An FMP capsule body (FmpCapsule.h): one embedded driver and one signed payload with an image header v3. */
function fmpBody(driver: Buffer, image: Buffer, signature: Buffer): Buffer {
  const auth = Buffer.alloc(32);
  auth.writeBigUInt64LE(7n, 0);
  auth.writeUInt32LE(24 + signature.length, 8);
  auth.writeUInt16LE(0x0200, 12);
  auth.writeUInt16LE(0x0ef1, 14);
  guidBytes('4AAFD29D-68DF-49EE-8AA9-347D375665A7').copy(auth, 16);
  const payloadData = Buffer.concat([auth, signature, image]);
  const imageHeader = Buffer.alloc(48);
  imageHeader.writeUInt32LE(3, 0);
  guidBytes(TYPE_ID).copy(imageHeader, 4);
  imageHeader[20] = 1;
  imageHeader.writeUInt32LE(payloadData.length, 24);
  imageHeader.writeUInt32LE(0, 28);
  const fmp = Buffer.alloc(8 + 16);
  fmp.writeUInt32LE(1, 0);
  fmp.writeUInt16LE(1, 4);
  fmp.writeUInt16LE(1, 6);
  fmp.writeBigUInt64LE(24n, 8);
  fmp.writeBigUInt64LE(BigInt(24 + driver.length), 16);
  return Buffer.concat([fmp, driver, imageHeader, payloadData]);
}

describe('uefi-capsule', () => {
  it('splits an FMP capsule into its driver, signature and image', async () => {
    const driver = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(100, 1)]);
    const image = Buffer.from('new system firmware '.repeat(20));
    const signature = pkcs7(image);
    const cap = capsule(FMP, fmpBody(driver, image, signature));
    const out = await runHandler(uefiCapsuleHandler, new BufferReader(Buffer.concat([cap, Buffer.alloc(10)])));
    expect(out.chunk).toMatchObject({ start: 0, end: cap.length, meta: { kind: 'fmp', flags: 0x50000 } });
    const dir = `payload-0_${TYPE_ID}`;
    expect(out.entries.map((e) => e.path)).toEqual(['driver-0.efi', `${dir}/signature.p7`, `${dir}/image.bin`]);
    expect(await out.read('driver-0.efi')).toEqual(driver);
    expect(await out.read(`${dir}/image.bin`)).toEqual(image);
    expect(await out.read(`${dir}/signature.p7`)).toEqual(signature);
    // openssl verifies the extracted signature against the extracted image.
    writeFileSync(join(work, 'img'), await out.read(`${dir}/image.bin`));
    writeFileSync(join(work, 'sig'), await out.read(`${dir}/signature.p7`));
    execFileSync('openssl', ['smime', '-verify', '-binary', '-inform', 'DER', '-in', join(work, 'sig'), '-content', join(work, 'img'), '-noverify', '-out', '/dev/null'], { stdio: 'pipe' });
    expect(out.entry(`${dir}/image.bin`).meta.meta).toMatchObject({ updateImageTypeId: TYPE_ID, updateImageIndex: 1 });
    await out.cleanup();
  });

  it('keeps the firmware volume of an EFI capsule and the ROM of an AMI capsule', async () => {
    const fv = volume([ffsFile('11111111-2222-3333-4444-555555555555', 0x07, stream(pe32(Buffer.from('MZ image'))))]);
    const efi = await runHandler(uefiCapsuleHandler, new BufferReader(capsule('3B6686BD-0D76-4030-B70E-B5519E2FC5A0', fv)));
    expect(await efi.read('body.fv')).toEqual(fv);
    await efi.cleanup();
    const extra = Buffer.alloc(4);
    extra.writeUInt16LE(32 + 16, 0); // RomImageOffset: after a 16-byte gap
    const rom = Buffer.from('AMI ROM image');
    const aptio = await runHandler(uefiCapsuleHandler, new BufferReader(capsule('4A3CA68B-7723-48FB-803D-578CC1FEC44D', Buffer.concat([Buffer.alloc(16), rom]), 0, extra)));
    expect(await aptio.read('rom.bin')).toEqual(rom);
    await aptio.cleanup();
  });

  it('rejects truncated and malformed capsules with a reason', async () => {
    const cap = capsule(FMP, fmpBody(Buffer.alloc(8), Buffer.alloc(64, 2), Buffer.alloc(40, 3)));
    await expect(uefiCapsuleHandler.chunk(new BufferReader(cap.subarray(0, 60)), 0)).rejects.toThrow(/truncated/);
    await expectTruncationsRefused(uefiCapsuleHandler, cap);
    const badOffset = Buffer.from(cap);
    badOffset.writeBigUInt64LE(0xffffn, 28 + 16);
    const info = (await uefiCapsuleHandler.chunk(new BufferReader(badOffset), 0))!;
    await expect(runHandler(uefiCapsuleHandler, new BufferReader(badOffset))).rejects.toThrow(/out of range/);
    expect(info.end).toBe(cap.length);
    const badFlags = Buffer.from(cap);
    badFlags.writeUInt32LE(0xffffffff, 20);
    expect(await uefiCapsuleHandler.chunk(new BufferReader(badFlags), 0)).toBeNull();
  });
});
