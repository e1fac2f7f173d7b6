// Time-based authenticated variable payloads (UEFI 8.2.2, EFI_VARIABLE_AUTHENTICATION_2): the signed update
// files for PK, KEK, db and dbx (the UEFI Forum's dbxupdate.bin, *.auth files in firmware packages). An
// EFI_TIME, a WIN_CERTIFICATE_UEFI_GUID with a PKCS#7 signature, then the new value: EFI signature lists.
// The signature and the lists are written apart, so the lists' certificates and hashes are read in turn.
import { FormatError } from '../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../handler.js';
import { efiSignatureListHandler } from './efi-signature-list.js';
import { GUIDS, guidBytes } from './uefi/guid.js';

const TIME = 16;
const CERT_HEADER = 8 + 16; // WIN_CERTIFICATE + CertType GUID
const MAGIC = Buffer.concat([Buffer.from('0002f10e', 'hex'), guidBytes(GUIDS.certPkcs7)]);
const MAGIC_AT = TIME + 4; // wRevision 0x0200, wCertificateType WIN_CERT_TYPE_EFI_GUID, CertType PKCS7

function timestamp(raw: Buffer): string | undefined {
  const year = raw.readUInt16LE(0);
  const [month, day, hour, minute, second] = [raw[2]!, raw[3]!, raw[4]!, raw[5]!, raw[6]!];
  if (year < 1900 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return undefined;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${year}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}Z`;
}

async function chunk(reader: Reader, start: number): Promise<ChunkInfo | null> {
  const head = await reader.read(start, TIME + CERT_HEADER);
  if (head.length < TIME + CERT_HEADER || !head.subarray(MAGIC_AT, MAGIC_AT + MAGIC.length).equals(MAGIC)) return null;
  const time = head.subarray(0, TIME);
  // EFI_TIME of an authenticated write: a plausible date (a zero one is allowed) with zero pad/nanosecond fields.
  const when = time.every((b) => b === 0) ? undefined : timestamp(time);
  if (when === undefined && !time.every((b) => b === 0)) return null;
  const certLength = head.readUInt32LE(TIME);
  if (certLength < CERT_HEADER + 16) return null;
  const payloadStart = start + TIME + certLength;
  if (payloadStart > reader.size) throw new FormatError(`authenticated variable: truncated, signature of ${certLength} bytes runs past the file`);
  const lists = payloadStart < reader.size ? await efiSignatureListHandler.chunk(reader, payloadStart) : null;
  return {
    start,
    end: lists ? lists.end : payloadStart,
    meta: { timestamp: when, signatureLength: certLength - CERT_HEADER, payloadStart: payloadStart - start, lists: lists?.meta?.lists ?? [] },
  };
}

async function extract(reader: Reader, info: ChunkInfo, sink: Sink): Promise<void> {
  const payloadStart = info.start + (info.meta!.payloadStart as number);
  await sink.copy('signature.p7', reader, info.start + TIME + CERT_HEADER, payloadStart, { meta: { timestamp: info.meta!.timestamp } });
  if (info.end > payloadStart) await sink.copy('signature-lists.esl', reader, payloadStart, info.end);
}

export const efiAuthVariableHandler: Handler = {
  id: 'efi-auth-variable',
  kind: 'boot',
  doc: {
    title: 'UEFI authenticated variable update (EFI_VARIABLE_AUTHENTICATION_2, e.g. dbxupdate.bin)',
    references: ['UEFI specification 8.2.2 (EFI_VARIABLE_AUTHENTICATION_2)', 'efitools sign-efi-sig-list'],
    limitations: ['The PKCS#7 signature is extracted, not verified'],
  },
  magics: [{ bytes: MAGIC, offset: MAGIC_AT }],
  confidence: 75,
  chunk,
  extract,
};
