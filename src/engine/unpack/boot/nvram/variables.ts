// What the UEFI variable store handlers (EDK II uefi-varstore, AMI NVAR, $VSS/VSS2/_FDC, Phoenix EVSA) share: the
// variable they hand over, UEFI attribute names, UCS-2 names, and writing variables as files named one way (active
// ones by name, older or deleted ones under 'deleted/', a clash suffixed with the vendor GUID), so downstream
// readers (EFI signature lists in db/KEK/PK) see the same tree whatever the firmware vendor.
import { FormatError } from '../../../format-error.js';
import type { Reader, Sink } from '../../handler.js';
import { safeName } from '../../firmware/common.js';

export interface NvramVariable {
  name: string;
  vendorGuid: string;
  /** UEFI attribute names: NV, BS, RT, HR, AW, TA, AP. */
  attributes: string[];
  state: 'active' | 'deleted';
  /** Absolute offset and size of the variable's data in the reader. */
  dataStart: number;
  dataSize: number;
  /** Format-specific facts kept on the file (store offset, vendor attributes, ...). */
  [fact: string]: unknown;
}

const EFI_ATTRIBUTES: Array<[number, string]> = [
  [0x01, 'NV'], [0x02, 'BS'], [0x04, 'RT'], [0x08, 'HR'], [0x10, 'AW'], [0x20, 'TA'], [0x40, 'AP'],
];

/** The UEFI attribute names of an EFI_VARIABLE_* bit set. */
export function efiAttributeNames(bits: number): string[] {
  return EFI_ATTRIBUTES.filter(([bit]) => bits & bit).map(([, name]) => name);
}

/** A NUL-terminated UCS-2 string at the start of `raw` (all of it when there is no terminator). */
export function ucs2z(raw: Buffer): { text: string; bytes: number; terminated: boolean } {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i] === 0 && raw[i + 1] === 0) return { text: raw.subarray(0, i).toString('utf16le'), bytes: i + 2, terminated: true };
  }
  return { text: raw.subarray(0, raw.length & ~1).toString('utf16le'), bytes: raw.length & ~1, terminated: false };
}

/** The 8-bit sum of `raw`. */
export function sum8(raw: Buffer): number {
  let sum = 0;
  for (const b of raw) sum = (sum + b) & 0xff;
  return sum;
}

/**
 * Where a store that gives its size in its header ends, or null. A header that is not formatted is no store past
 * offset 0 (store signatures and GUIDs are also constants in variable drivers), and a corrupt store at offset 0.
 */
export function storeEnd(reader: Reader, start: number, store: { label: string; formatted: boolean; format: number; size: number }): number | null {
  const { label, format, size } = store;
  if (!store.formatted) {
    if (start > 0) return null;
    throw new FormatError(`${label}: not formatted (format 0x${format.toString(16)}, size ${size})`);
  }
  const end = start + size;
  if (end > reader.size) throw new FormatError(`${label}: truncated, size ${size} runs past the file (${reader.size})`);
  return end;
}

/** How many variables are active and how many deleted: what a store's chunk meta tells. */
export async function countVariables(variables: AsyncIterable<{ state: 'active' | 'deleted' }>): Promise<{ variables: number; deleted: number }> {
  const counts = { variables: 0, deleted: 0 };
  for await (const v of variables) counts[v.state === 'active' ? 'variables' : 'deleted']++;
  return counts;
}

/** Writes each variable's data as a file, named as described above; the other fields become its meta. */
export async function writeVariables(reader: Reader, variables: Iterable<NvramVariable> | AsyncIterable<NvramVariable>, sink: Sink): Promise<void> {
  const taken = new Set<string>();
  for await (const v of variables) {
    if (sink.signal.aborted) throw sink.signal.reason;
    const base = safeName(v.name, 'unnamed');
    let path = v.state === 'active' ? base : `deleted/${base}`;
    if (taken.has(path)) path = `${path}_${v.vendorGuid}`;
    for (let n = 1; taken.has(path); n++) path = `${path.replace(/~\d+$/, '')}~${n}`;
    taken.add(path);
    const { dataStart, dataSize, ...facts } = v;
    await sink.copy(path, reader, dataStart, dataStart + dataSize, { meta: facts });
  }
}
