import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { efiAuthVariableHandler } from '../../../../src/engine/unpack/boot/efi-auth-variable.js';
import { GUIDS, guidBytes } from '../../../../src/engine/unpack/boot/uefi/guid.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';
import { selfSignedDer, signatureList } from './efi-builders.js';

const work = mkdtempSync(join(tmpdir(), 'authvar-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const OWNER = '77FA9ABD-0359-4D32-BD60-28F4E78F784B';

/** A PKCS#7 detached signature made by openssl over `data`. */
function pkcs7(data: Buffer): Buffer {
  writeFileSync(join(work, 'data'), data);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(work, 'k.pem'), '-subj', '/CN=KEK signer', '-out', join(work, 'c.pem')], { stdio: 'pipe' });
  execFileSync('openssl', ['smime', '-sign', '-binary', '-in', join(work, 'data'), '-signer', join(work, 'c.pem'), '-inkey', join(work, 'k.pem'), '-outform', 'DER', '-noattr', '-out', join(work, 's.p7')], { stdio: 'pipe' });
  return readFileSync(join(work, 's.p7'));
}

/** EFI_VARIABLE_AUTHENTICATION_2 (UEFI 8.2.2) followed by the new value. */
function authVariable(esl: Buffer, signature: Buffer): Buffer {
  const time = Buffer.alloc(16);
  time.writeUInt16LE(2024, 0);
  time[2] = 5;
  time[3] = 17;
  time[4] = 8;
  time[5] = 30;
  const cert = Buffer.alloc(24);
  cert.writeUInt32LE(24 + signature.length, 0);
  cert.writeUInt16LE(0x0200, 4);
  cert.writeUInt16LE(0x0ef1, 6);
  guidBytes(GUIDS.certPkcs7).copy(cert, 8);
  return Buffer.concat([time, cert, signature, esl]);
}

describe('efi-auth-variable', () => {
  it('splits a signed db update into its signature and signature lists', async () => {
    const cert = selfSignedDer('Firmscope db update');
    const esl = signatureList(GUIDS.certX509, OWNER, [cert]);
    const signature = pkcs7(esl);
    const update = authVariable(esl, signature);
    const out = await runHandler(efiAuthVariableHandler, new BufferReader(Buffer.concat([update, Buffer.alloc(7)])));
    expect(out.chunk).toMatchObject({ start: 0, end: update.length, meta: { timestamp: '2024-05-17T08:30:00Z', lists: [{ type: 'x509', count: 1 }] } });
    expect(await out.read('signature.p7')).toEqual(signature);
    expect(await out.read('signature-lists.esl')).toEqual(esl);
    // The extracted signature still verifies the extracted lists.
    execFileSync('openssl', ['smime', '-verify', '-binary', '-inform', 'DER', '-in', join(out.root, 'signature.p7'), '-content', join(out.root, 'signature-lists.esl'), '-noverify', '-out', '/dev/null'], { stdio: 'pipe' });
    await out.cleanup();
  });

  it('takes an empty value (a deletion) and rejects truncation with a reason', async () => {
    const signature = Buffer.alloc(300, 0x30);
    const deletion = authVariable(Buffer.alloc(0), signature);
    const out = await runHandler(efiAuthVariableHandler, new BufferReader(deletion));
    expect(out.entries.map((e) => e.path)).toEqual(['signature.p7']);
    await out.cleanup();
    await expect(efiAuthVariableHandler.chunk(new BufferReader(deletion.subarray(0, 200)), 0)).rejects.toThrow(/truncated/);
    await expectTruncationsRefused(efiAuthVariableHandler, deletion);
    const badTime = Buffer.from(deletion);
    badTime[2] = 13; // month 13
    expect(await efiAuthVariableHandler.chunk(new BufferReader(badTime), 0)).toBeNull();
  });
});
