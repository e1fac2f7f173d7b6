// One PE or TE image → its BinaryInfo: hardening (pe-hardening.ts) and the unsafe CRT functions it imports.
// On x86 and x86-64 the call sites are decoded: `call [IAT slot]` (ff 15) and `call thunk` (e8) to an import
// thunk `jmp [IAT slot]` (ff 25). Other machines report the imports without call sites. Statically linked CRT
// functions are recognised, and callers named, only with the image's PDB (matched by its RSDS GUID and age):
// its public symbols name the functions (PE images keep no symbol names of their own).
import type { BinaryInfo } from '../types.js';
import { bufferSource } from './byte-source.js';
import type { DebugSymbolIndex, PdbDebugSymbols } from './debug-files.js';
import type { CallTargets, CodeRegion } from './call-sites.js';
import { decodeX86Calls, findX86Stubs } from './call-sites-x86.js';
import { parsePe, type PeInfo } from './pe.js';
import type { PdbPublic } from './pdb.js';
import { peHardening } from './pe-hardening.js';
import { isNetworkFacing, WINSOCK_ORDINALS } from './network-facing.js';
import { FunctionIndex, type UnsafeCandidate, UnsafeCallCollector, unsafeFunctionName, unsafeUses } from './unsafe-functions.js';

const IMAGE_SCN_CNT_CODE = 0x20;
const IMAGE_SCN_MEM_EXECUTE = 0x20000000;

function codeRegions(pe: PeInfo, buf: Buffer): CodeRegion[] {
  return pe.sections
    .filter((s) => (s.characteristics & (IMAGE_SCN_CNT_CODE | IMAGE_SCN_MEM_EXECUTE)) !== 0 && s.rawSize > 0 && s.rawOffset < buf.length)
    .map((s) => ({ address: pe.imageBase + s.virtualAddress, bytes: buf.subarray(s.rawOffset, Math.min(s.rawOffset + Math.min(s.rawSize, Math.max(s.virtualSize, s.rawSize)), buf.length)) }));
}

/** Imported function names, with Winsock ordinals named. */
function importedNames(pe: PeInfo): Set<string> {
  const names = new Set<string>();
  for (const dll of pe.imports) {
    const winsock = /^(ws2_32|wsock32)\.dll$/i.test(dll.dll);
    for (const fn of dll.functions) names.add((winsock && WINSOCK_ORDINALS[fn]) || fn);
  }
  return names;
}

/** Windows GUI and console programs and DLLs; UEFI and driver images are held to other rules. */
const WINDOWS_SUBSYSTEMS = new Set([2, 3, 9]);

export interface AnalyzedPe {
  binary: BinaryInfo;
  /** Missing DEP/ASLR is a finding only for Windows user-mode images. */
  mitigationsApply: boolean;
}

/** The PDB's function publics with their virtual addresses (section:offset through the PE's sections when the PDB keeps none). */
function pdbFunctions(pe: PeInfo, pdb: PdbDebugSymbols | undefined): Array<PdbPublic & { address: number }> {
  if (!pdb) return [];
  return pdb.pdb.publics.flatMap((p) => {
    const rva = p.rva ?? (pe.sections[p.section - 1] && pe.sections[p.section - 1]!.virtualAddress + p.offset);
    return p.function && rva !== undefined ? [{ ...p, address: pe.imageBase + rva }] : [];
  });
}

export async function analyzePe(path: string, buf: Buffer, debug?: DebugSymbolIndex): Promise<AnalyzedPe> {
  const src = bufferSource(buf);
  const pe = await parsePe(src);
  const pdb = debug?.pe(pe.pdbId);
  const functions = pdbFunctions(pe, pdb);
  const candidates: UnsafeCandidate[] = [];
  const targets: CallTargets = { addresses: new Map(), slots: new Map() };
  for (const dll of pe.imports) {
    dll.functions.forEach((fn, k) => {
      const name = unsafeFunctionName(fn, 'pe');
      if (!name) return;
      let id = candidates.findIndex((c) => c.symbol === fn);
      if (id < 0) id = candidates.push({ name, symbol: fn, linkage: 'imported' }) - 1;
      targets.slots.set(pe.imageBase + dll.slots[k]!, id);
    });
  }
  // A program that defines an unsafe function links it in; a DLL that exports one implements it (like msvcrt).
  // A public named like an import is the import's thunk (`jmp [IAT slot]`), found by findX86Stubs.
  if (!pe.isDll) {
    for (const fn of functions) {
      const name = unsafeFunctionName(fn.name, 'pe');
      if (!name || targets.addresses.has(fn.address) || candidates.some((c) => c.symbol === fn.name)) continue;
      targets.addresses.set(fn.address, candidates.push({ name, symbol: fn.name, linkage: 'static' }) - 1);
    }
  }
  const decoded = pe.format === 'pe' && (pe.architecture === 'x86' || pe.architecture === 'x86_64');
  const collector = new UnsafeCallCollector(candidates, new FunctionIndex(() => functions.map((f) => ({ address: f.address, name: f.name }))));
  if (decoded && candidates.length) {
    const code = codeRegions(pe, buf);
    for (const r of code) findX86Stubs(r, pe.is64, undefined, targets);
    for (const r of code) decodeX86Calls(r, pe.is64, undefined, targets, collector.onCall);
  }
  const unsafeFunctions = collector.result(decoded);
  const binary: BinaryInfo = {
    path,
    format: pe.format,
    type: pe.isDll ? 'shared-object' : 'executable',
    arch: pe.architecture,
    bits: pe.is64 ? 64 : 32,
    endian: 'le',
    hardening: await peHardening(src, pe),
    unsafeFunctions,
    callSitesDecoded: decoded,
    networkFacing: isNetworkFacing(path, importedNames(pe)),
    unsafeUses: unsafeUses(unsafeFunctions, decoded),
    symbols: {
      imported: pe.imports.reduce((n, i) => n + i.functions.length, 0),
      exported: pe.exports.length,
      defined: functions.length,
      ...(pdb ? { source: 'pdb' as const, debugFile: pdb.file } : { source: 'none' as const }),
    },
  };
  return { binary, mitigationsApply: pe.format === 'pe' && WINDOWS_SUBSYSTEMS.has(pe.subsystem) };
}
