// Insyde H2O factory default copy ('_FDC' region): a signature and the region's size, then a firmware volume header
// (with its block map) whose body is a variable store: a '$VSS' store, or one headed by the EDK II variable GUID.
// The inner store's own size field is not trusted (UEFITool overrides it): its variables run to the end of the
// region. They are read by the VSS walker of nvram-vss.ts (per-variable plain, authenticated, Apple and Intel
// layouts) and written as files named as uefi-varstore names them.
import { FormatError } from '../../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import { struct } from '../../struct.js';
import { GUIDS, guidString } from '../uefi/guid.js';
import { writeVariables } from './variables.js';
import { vssVariables } from './vss.js';

const FdcHeader = struct('le', { signature: 'char[4]', size: 'u32' });
const FV_SIGNATURE_AT = 0x28;
const FV_HEADER_LENGTH_AT = 0x30;
const MIN_FV_HEADER = 0x48;
const VSS_HEADER = 16;
const GUID_STORE_HEADER = 28;

type FdcMeta = {
  storeKind: '$VSS' | 'guid';
  bodyStart: number;
  variables: number;
  deleted: number;
};

async function chunk(reader: Reader, start: number): Promise<ChunkInfo<FdcMeta> | null> {
  const head = await reader.read(start, FdcHeader.size + MIN_FV_HEADER);
  if (head.length < FdcHeader.size + MIN_FV_HEADER) return null;
  const h = FdcHeader.parse(head);
  if (h.signature !== '_FDC') return null;
  const fv = head.subarray(FdcHeader.size);
  const fvHeaderLength = fv.readUInt16LE(FV_HEADER_LENGTH_AT);
  const hasVolume = fv.toString('latin1', FV_SIGNATURE_AT, FV_SIGNATURE_AT + 4) === '_FVH' && fvHeaderLength >= MIN_FV_HEADER;
  if (!hasVolume && start > 0) return null;
  if (!hasVolume) throw new FormatError('_FDC region: no firmware volume header inside');
  const storeAt = start + FdcHeader.size + fvHeaderLength;
  const end = start + h.size;
  if (h.size < FdcHeader.size + fvHeaderLength + VSS_HEADER) throw new FormatError(`_FDC region: size ${h.size} leaves no room for a store`);
  if (end > reader.size) throw new FormatError(`_FDC region: truncated, size ${h.size} runs past the file (${reader.size})`);
  const store = await reader.readExact(storeAt, VSS_HEADER);
  let meta: FdcMeta;
  if (store.toString('latin1', 0, 4) === '$VSS') meta = { storeKind: '$VSS', bodyStart: storeAt + VSS_HEADER, variables: 0, deleted: 0 };
  else if (guidString(store) === GUIDS.variableStore) meta = { storeKind: 'guid', bodyStart: storeAt + GUID_STORE_HEADER, variables: 0, deleted: 0 };
  else throw new FormatError('_FDC region: the volume holds no $VSS or variable-GUID store');
  if (meta.bodyStart > end) throw new FormatError('_FDC region: store header runs past the region');
  for await (const v of vssVariables(reader, meta.bodyStart, end, 0)) meta[v.state === 'active' ? 'variables' : 'deleted']++;
  return { start, end, meta };
}

async function extract(reader: Reader, info: ChunkInfo<FdcMeta>, sink: Sink): Promise<void> {
  const meta = info.meta!;
  await writeVariables(reader, vssVariables(reader, meta.bodyStart, info.end, 0), sink);
}

export const insydeFdcHandler: Handler<FdcMeta> = {
  id: 'insyde-fdc',
  kind: 'boot',
  doc: {
    title: 'Insyde _FDC factory default variable region',
    references: ['UEFITool common/nvram.h (FDC_VOLUME_HEADER), nvramparser.cpp (parseFdcStoreBody), ksy/insyde_fdc.ksy'],
    limitations: ['Only the variable store inside is read; the volume header is used for its length only'],
  },
  magics: [{ bytes: Buffer.from('_FDC') }],
  confidence: 80,
  chunk,
  extract,
};
