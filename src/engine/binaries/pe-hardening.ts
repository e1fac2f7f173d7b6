// PE hardening from the image's own declarations (as winchecksec reports them):
//   nx             DllCharacteristics NX_COMPAT (0x100)
//   aslr           DYNAMIC_BASE (0x40) with relocations kept (COFF RELOCS_STRIPPED 0x1 clear)
//   highEntropyVa  HIGH_ENTROPY_VA (0x20) on an ASLR image
//   cfg            GUARD_CF (0x4000), and the load config's GuardFlags has CF_INSTRUMENTED (0x100) when present
//   safeSeh        x86: NO_SEH (0x400), or a load config with an SEHandlerTable; 64-bit: always (table-based)
//   forceIntegrity FORCE_INTEGRITY (0x80)
//   signed         the security directory holds a WIN_CERTIFICATE of type PKCS_SIGNED_DATA (not verified)
// TE images keep none of these headers: everything is false.
import type { PeHardening } from '../types.js';
import type { ByteSource } from './byte-source.js';
import { type PeInfo, rvaToOffset } from './pe.js';

const DYNAMIC_BASE = 0x40;
const HIGH_ENTROPY_VA = 0x20;
const FORCE_INTEGRITY = 0x80;
const NX_COMPAT = 0x100;
const NO_SEH = 0x400;
const GUARD_CF = 0x4000;
const RELOCS_STRIPPED = 0x1;
const CF_INSTRUMENTED = 0x100;
const WIN_CERT_TYPE_PKCS_SIGNED_DATA = 2;

interface LoadConfig {
  seHandlerTable: number;
  seHandlerCount: number;
  guardFlags?: number;
}

/** The fields of IMAGE_LOAD_CONFIG_DIRECTORY32/64 hardening needs, as far as the structure's Size reaches. */
async function readLoadConfig(src: ByteSource, pe: PeInfo): Promise<LoadConfig | undefined> {
  const dir = pe.directories[10];
  if (!dir?.rva) return undefined;
  const at = rvaToOffset(pe.sections, dir.rva);
  if (at === undefined) return undefined;
  const buf = await src.read(at, 256);
  if (buf.length < 4) return undefined;
  const size = Math.min(buf.readUInt32LE(0), buf.length);
  const [tableAt, countAt, flagsAt, width] = pe.is64 ? [96, 104, 144, 8] : [64, 68, 88, 4];
  const field = (o: number): number => (o + width > size ? 0 : width === 8 ? Number(buf.readBigUInt64LE(o)) : buf.readUInt32LE(o));
  return {
    seHandlerTable: field(tableAt),
    seHandlerCount: field(countAt),
    guardFlags: flagsAt + 4 <= size ? buf.readUInt32LE(flagsAt) : undefined,
  };
}

async function isSigned(src: ByteSource, pe: PeInfo): Promise<boolean> {
  const dir = pe.directories[4];
  if (!dir || dir.rva === 0 || dir.size < 8 || dir.rva + 8 > src.size) return false;
  const head = await src.read(dir.rva, 8);
  return head.length === 8 && head.readUInt16LE(6) === WIN_CERT_TYPE_PKCS_SIGNED_DATA;
}

export async function peHardening(src: ByteSource, pe: PeInfo): Promise<PeHardening> {
  const dll = pe.dllCharacteristics ?? 0;
  if (pe.format === 'te') return { nx: false, aslr: false, highEntropyVa: false, cfg: false, safeSeh: false, forceIntegrity: false, signed: false };
  const config = await readLoadConfig(src, pe);
  const aslr = (dll & DYNAMIC_BASE) !== 0 && (pe.characteristics & RELOCS_STRIPPED) === 0;
  return {
    nx: (dll & NX_COMPAT) !== 0,
    aslr,
    highEntropyVa: aslr && pe.is64 && (dll & HIGH_ENTROPY_VA) !== 0,
    cfg: (dll & GUARD_CF) !== 0 && (config?.guardFlags === undefined || (config.guardFlags & CF_INSTRUMENTED) !== 0),
    safeSeh: pe.is64 || (dll & NO_SEH) !== 0 || (config !== undefined && config.seHandlerTable !== 0 && config.seHandlerCount > 0),
    forceIntegrity: (dll & FORCE_INTEGRITY) !== 0,
    signed: await isSigned(src, pe),
  };
}
