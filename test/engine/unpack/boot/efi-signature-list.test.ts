import { createHash, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { efiSignatureListHandler } from '../../../../src/engine/unpack/boot/efi-signature-list.js';
import { GUIDS } from '../../../../src/engine/unpack/boot/uefi/guid.js';
import { uefiVarstoreHandler } from '../../../../src/engine/unpack/boot/nvram/uefi-varstore.js';
import { BufferReader, FileReader } from '../../../../src/engine/unpack/reader.js';
import { corpus, haveShared } from '../../../support/shared.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';
import { selfSignedDer, signatureList } from './efi-builders.js';

const OWNER = '77FA9ABD-0359-4D32-BD60-28F4E78F784B';

describe('efi-signature-list', () => {
  const certA = selfSignedDer('Firmscope Test PK');
  const certB = selfSignedDer('Firmscope Test db');
  const hashes = ['a', 'b', 'c'].map((s) => createHash('sha256').update(s).digest());

  it('writes certificates as DER and hashes as text', async () => {
    const esl = Buffer.concat([
      signatureList(GUIDS.certX509, OWNER, [certA]),
      signatureList(GUIDS.certSha256, OWNER, hashes),
      signatureList(GUIDS.certX509, OWNER, [certB]),
    ]);
    const out = await runHandler(efiSignatureListHandler, new BufferReader(Buffer.concat([esl, Buffer.alloc(32, 0xff)])));
    expect(out.chunk).toMatchObject({ start: 0, end: esl.length, meta: { lists: [{ type: 'x509', count: 1 }, { type: 'sha256', count: 3 }, { type: 'x509', count: 1 }] } });
    expect(out.entries.map((e) => e.path)).toEqual(['cert-0.der', 'cert-1.der', 'sha256-hashes.txt']);
    expect(await out.read('cert-0.der')).toEqual(certA);
    expect(new X509Certificate(await out.read('cert-1.der')).subject).toBe('CN=Firmscope Test db');
    expect(out.entry('cert-0.der').meta.meta).toMatchObject({ owner: OWNER, subject: 'CN=Firmscope Test PK' });
    expect((await out.read('sha256-hashes.txt')).toString()).toBe(hashes.map((h) => `${h.toString('hex')} ${OWNER}\n`).join(''));
    await out.cleanup();
  });

  it('rejects malformed lists quietly or with a reason, and ends the chunk before a bad tail', async () => {
    const list = signatureList(GUIDS.certSha256, OWNER, hashes);
    const wrongSize = Buffer.from(list);
    wrongSize.writeUInt32LE(16 + 20, 24); // sha256 signatures must be 48 bytes
    expect(await efiSignatureListHandler.chunk(new BufferReader(wrongSize), 0)).toBeNull();
    await expect(efiSignatureListHandler.chunk(new BufferReader(list.subarray(0, 60)), 0)).rejects.toThrow(/truncated/);
    const withBadTail = Buffer.concat([list, list.subarray(0, 40)]);
    expect(await efiSignatureListHandler.chunk(new BufferReader(withBadTail), 0)).toMatchObject({ end: list.length });
    await expectTruncationsRefused(efiSignatureListHandler, list);
    const notDer = signatureList(GUIDS.certX509, OWNER, [Buffer.from('not a certificate')]);
    const out = await runHandler(efiSignatureListHandler, new BufferReader(notDer));
    expect(out.problems[0]?.message).toMatch(/not valid DER/);
    await out.cleanup();
  });

  it.runIf(haveShared('corpus', 'OVMF_VARS.secboot.fd'))('yields the certificates and dbx hashes of OVMF_VARS', async () => {
    const reader = await FileReader.open(corpus('OVMF_VARS.secboot.fd'));
    const store = await runHandler(uefiVarstoreHandler, reader, 0x48);
    const found: Record<string, string[]> = {};
    for (const name of ['PK', 'KEK', 'db', 'dbx']) {
      const variable = new BufferReader(await store.read(name));
      const out = await runHandler(efiSignatureListHandler, variable);
      expect(out.chunk.end).toBe(variable.size);
      found[name] = out.entries.map((e) => `${e.path}: ${String(e.meta.meta?.subject ?? e.meta.meta?.count).split('\n').pop()}`);
      await out.cleanup();
    }
    expect(found).toEqual({
      PK: ['cert-0.der: emailAddress=secalert@redhat.com'],
      KEK: ['cert-0.der: emailAddress=secalert@redhat.com', 'cert-1.der: CN=Microsoft Corporation KEK CA 2011'],
      db: ['cert-0.der: CN=Microsoft Windows Production PCA 2011', 'cert-1.der: CN=Microsoft Corporation UEFI CA 2011'],
      dbx: ['sha256-hashes.txt: 217'],
    });
    await store.cleanup();
    await reader.close();
  });
});
