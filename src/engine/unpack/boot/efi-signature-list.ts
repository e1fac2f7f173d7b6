// EFI_SIGNATURE_LIST sequences (UEFI spec 32.4.1), the contents of the Secure Boot variables PK, KEK, db, dbx,
// dbt and of MokList: each list has a signature type GUID, its total size, a header size and a fixed signature
// size, then signatures of (owner GUID, data). X.509 certificates are written as DER files, hashes as one text
// file per type (hex digest and owner), other types as raw files.
import { X509Certificate } from 'node:crypto';
import { FormatError } from '../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../handler.js';
import { struct } from '../struct.js';
import { GUIDS, guidBytes, guidString } from './uefi/guid.js';

const ListHeader = struct('le', { type: 'bytes[16]', listSize: 'u32', headerSize: 'u32', signatureSize: 'u32' });
const OWNER = 16;
/** Sizes of one signature's data for the fixed-size types (0 = variable, checked per list). */
const TYPES: Record<string, { name: string; dataSize: number }> = {
  [GUIDS.certX509]: { name: 'x509', dataSize: 0 },
  [GUIDS.certSha256]: { name: 'sha256', dataSize: 32 },
  [GUIDS.certSha1]: { name: 'sha1', dataSize: 20 },
  [GUIDS.certSha224]: { name: 'sha224', dataSize: 28 },
  [GUIDS.certSha384]: { name: 'sha384', dataSize: 48 },
  [GUIDS.certSha512]: { name: 'sha512', dataSize: 64 },
  [GUIDS.certRsa2048]: { name: 'rsa2048', dataSize: 256 },
  [GUIDS.certX509Sha256]: { name: 'x509-sha256', dataSize: 48 },
  [GUIDS.certX509Sha384]: { name: 'x509-sha384', dataSize: 64 },
  [GUIDS.certX509Sha512]: { name: 'x509-sha512', dataSize: 80 },
  [GUIDS.certPkcs7]: { name: 'pkcs7', dataSize: 0 },
};
const MAX_LISTS = 4096;

interface SignatureList {
  offset: number;
  type: string;
  headerSize: number;
  signatureSize: number;
  count: number;
}

/** The list at `at` if it is a well-formed list of a known type, else undefined. */
async function readList(reader: Reader, at: number): Promise<SignatureList | undefined> {
  const raw = await reader.read(at, ListHeader.size);
  if (raw.length < ListHeader.size) return undefined;
  const h = ListHeader.parse(raw);
  const type = TYPES[guidString(h.type)];
  if (!type) return undefined;
  const body = h.listSize - ListHeader.size - h.headerSize;
  if (h.signatureSize <= OWNER || body < 0 || body % h.signatureSize !== 0) return undefined;
  if (type.dataSize && h.signatureSize !== OWNER + type.dataSize) return undefined;
  if (at + h.listSize > reader.size) throw new FormatError(`signature list at ${at}: truncated, ${h.listSize} bytes declared`);
  return { offset: at, type: type.name, headerSize: h.headerSize, signatureSize: h.signatureSize, count: body / h.signatureSize };
}

async function chunk(reader: Reader, start: number): Promise<ChunkInfo | null> {
  const lists: SignatureList[] = [];
  let at = start;
  while (lists.length < MAX_LISTS) {
    const list = await readList(reader, at).catch((error: unknown) => {
      if (lists.length === 0) throw error;
      return undefined; // a truncated list after good ones: the chunk ends before it
    });
    if (!list) break;
    lists.push(list);
    at += ListHeader.size + list.headerSize + list.count * list.signatureSize;
  }
  if (lists.length === 0) return null;
  return { start, end: at, meta: { lists: lists.map(({ type, count }) => ({ type, count })), listOffsets: lists.map((l) => l.offset) } };
}

function subjectOf(der: Buffer): Record<string, unknown> | undefined {
  try {
    const cert = new X509Certificate(der);
    return { subject: cert.subject, issuer: cert.issuer, serialNumber: cert.serialNumber, validTo: cert.validTo };
  } catch {
    return undefined;
  }
}

async function extract(reader: Reader, info: ChunkInfo, sink: Sink): Promise<void> {
  const hashes = new Map<string, string[]>();
  let certs = 0;
  for (const offset of info.meta!.listOffsets as number[]) {
    const list = (await readList(reader, offset))!;
    let at = offset + ListHeader.size + list.headerSize;
    for (let i = 0; i < list.count; i++, at += list.signatureSize) {
      const signature = await reader.readExact(at, list.signatureSize);
      const owner = guidString(signature);
      const data = signature.subarray(OWNER);
      if (list.type === 'x509' || list.type === 'pkcs7') {
        const cert = list.type === 'x509' ? subjectOf(data) : undefined;
        if (list.type === 'x509' && !cert) sink.problem('warning', `signature list: certificate ${certs} is not valid DER X.509`, at);
        await sink.file(`${list.type === 'x509' ? 'cert' : 'pkcs7'}-${certs++}.${list.type === 'x509' ? 'der' : 'p7b'}`, data, {
          meta: { owner, signatureType: list.type, ...cert },
        });
      } else if (list.type === 'rsa2048') {
        await sink.file(`rsa2048-${certs++}.bin`, data, { meta: { owner, signatureType: list.type } });
      } else {
        const lines = hashes.get(list.type) ?? [];
        lines.push(`${data.toString('hex')} ${owner}`);
        hashes.set(list.type, lines);
      }
    }
  }
  for (const [type, lines] of hashes) {
    await sink.file(`${type}-hashes.txt`, Buffer.from(`${lines.join('\n')}\n`), { meta: { signatureType: type, count: lines.length } });
  }
}

export const efiSignatureListHandler: Handler = {
  id: 'efi-signature-list',
  kind: 'boot',
  doc: {
    title: 'EFI signature lists (Secure Boot PK/KEK/db/dbx contents)',
    references: ['UEFI specification 32.4.1 (EFI_SIGNATURE_LIST)', 'efitools sig-list-to-certs', 'EDK II SecureBootConfigDxe'],
  },
  magics: Object.keys(TYPES).map((guid) => ({ bytes: guidBytes(guid) })),
  confidence: 60,
  chunk,
  extract,
};
