// UEFI variable store (EDK II VARIABLE_STORE_HEADER, as in the NV-data volume of OVMF and PC firmware): a
// header (store GUID for plain or authenticated variables, size, format 0x5A, state 0xFE) followed by
// 4-byte aligned variables, each starting with 0x55AA and carrying state, attributes, name (UCS-2), vendor GUID
// and data. Authenticated stores add a monotonic count, timestamp and public key index to each header.
// Active variables become files named after the variable, deleted ones go to 'deleted/' (variables.ts names
// them, as for the vendor NVRAM stores).
import { FormatError } from '../../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import { struct } from '../../struct.js';
import { countVariables, efiAttributeNames, storeEnd, ucs2z, writeVariables, type NvramVariable } from './variables.js';
import { GUIDS, guidBytes, guidString } from '../uefi/guid.js';

const StoreHeader = struct('le', { signature: 'bytes[16]', size: 'u32', format: 'u8', state: 'u8', reserved: 'u16', reserved1: 'u32' });
const Plain = struct('le', { startId: 'u16', state: 'u8', reserved: 'u8', attributes: 'u32', nameSize: 'u32', dataSize: 'u32', vendor: 'bytes[16]' });
const Auth = struct('le', {
  startId: 'u16', state: 'u8', reserved: 'u8', attributes: 'u32', monotonicCount: 'u64', timestamp: 'bytes[16]', pubKeyIndex: 'u32',
  nameSize: 'u32', dataSize: 'u32', vendor: 'bytes[16]',
});
const START_ID = 0x55aa;
const VAR_ADDED = 0x3f;
const VAR_IN_DELETED_TRANSITION = 0x3e;

type StoreMeta = {
  authenticated: boolean;
  variables: number;
  deleted: number;
};

/** A variable, with the facts of its authenticated header when the store has them. */
interface Variable extends NvramVariable {
  monotonicCount?: number;
  timestamp?: string;
  pubKeyIndex?: number;
}

function efiTime(raw: Buffer): string | undefined {
  const year = raw.readUInt16LE(0);
  if (year === 0) return undefined;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${year}-${pad(raw[2]!)}-${pad(raw[3]!)}T${pad(raw[4]!)}:${pad(raw[5]!)}:${pad(raw[6]!)}Z`;
}

/** Walks the variables of the store at `start`; stops quietly at the first slot without a start id. */
async function* variables(reader: Reader, start: number, end: number, authenticated: boolean): AsyncGenerator<Variable> {
  const layout = authenticated ? Auth : Plain;
  let at = start + Math.ceil(StoreHeader.size / 4) * 4;
  while (at + layout.size <= end) {
    const raw = await reader.readExact(at, layout.size);
    const h = layout.parse(raw);
    const auth = authenticated ? Auth.parse(raw) : undefined;
    if (h.startId !== START_ID) return;
    const nameStart = at + layout.size;
    const dataStart = nameStart + h.nameSize;
    const next = dataStart + h.dataSize;
    if (h.nameSize > 0x10000 || next > end) throw new FormatError(`variable at 0x${(at - start).toString(16)}: runs past the store`);
    const nameRaw = await reader.readExact(nameStart, h.nameSize);
    const state = h.state === VAR_ADDED || h.state === VAR_IN_DELETED_TRANSITION ? 'active' : 'deleted';
    const variable: Variable = {
      name: ucs2z(nameRaw).text,
      vendorGuid: guidString(h.vendor),
      attributes: efiAttributeNames(h.attributes),
      state,
      dataStart,
      dataSize: h.dataSize,
    };
    if (auth) {
      variable.monotonicCount = auth.monotonicCount;
      variable.timestamp = efiTime(auth.timestamp);
      variable.pubKeyIndex = auth.pubKeyIndex;
    }
    // A header whose state says it was never completed ends the list (power loss while writing).
    if (h.state === 0x7f || h.state === 0xff) return;
    yield variable;
    at = Math.ceil(next / 4) * 4;
  }
}

async function chunk(reader: Reader, start: number): Promise<ChunkInfo<StoreMeta> | null> {
  const raw = await reader.read(start, StoreHeader.size);
  if (raw.length < StoreHeader.size) return null;
  const h = StoreHeader.parse(raw);
  const guid = guidString(h.signature);
  const authenticated = guid === GUIDS.authVariableStore;
  if (!authenticated && guid !== GUIDS.variableStore) return null;
  const end = storeEnd(reader, start, { label: 'variable store', formatted: h.format === 0x5a && h.size >= StoreHeader.size, format: h.format, size: h.size });
  if (end === null) return null;
  const meta: StoreMeta = { authenticated, ...(await countVariables(variables(reader, start, end, authenticated))) };
  return { start, end, meta };
}

async function extract(reader: Reader, info: ChunkInfo<StoreMeta>, sink: Sink): Promise<void> {
  const meta = info.meta!;
  await writeVariables(reader, variables(reader, info.start, info.end, meta.authenticated), sink);
}

export const uefiVarstoreHandler: Handler<StoreMeta> = {
  id: 'uefi-varstore',
  kind: 'boot',
  doc: {
    title: 'UEFI variable store (plain and authenticated)',
    references: ['EDK II MdeModulePkg/Include/Guid/VariableFormat.h', 'UEFI spec 8.2 (variable services)', 'UEFITool nvram parser'],
    limitations: [
      'The EDK II store only: vendor NVRAM stores (AMI NVAR, $VSS/$SVS/VSS2, Insyde _FDC, Phoenix EVSA) are read by the ami-nvar, nvram-vss, insyde-fdc and phoenix-evsa handlers',
      'The variable list ends at the first slot without a start id or with a header never completed; the fault-tolerant write (FTW) working block is not read',
    ],
  },
  magics: [{ bytes: guidBytes(GUIDS.variableStore) }, { bytes: guidBytes(GUIDS.authVariableStore) }],
  confidence: 80,
  chunk,
  extract,
};
