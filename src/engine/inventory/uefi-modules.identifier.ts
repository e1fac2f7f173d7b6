// UEFI modules: each executable section (PE32, TE, PIC) the firmware-volume handler extracted is a module
// component named by its UI name and GUID (FileNode.meta), with the VERSION section when present.
import { posix } from 'node:path';
import { nodeSource } from '../binaries/byte-source.js';
import { parsePe } from '../binaries/pe.js';
import { FormatError } from '../format-error.js';
import type { FileNode } from '../types.js';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { buildPurl } from '../purl.js';

const EXECUTABLE = new Set(['PE32', 'TE', 'PIC']);

function meta(node: FileNode): { guid?: string; uiName?: string; fileType?: string; sectionType?: string } {
  return (node.meta ?? {}) as Record<string, string | undefined>;
}

/** An executable section of a firmware-volume file (a UEFI module), as the firmware-volume handler extracted it. */
export const isUefiModule = (node: FileNode): boolean => typeof meta(node).guid === 'string' && EXECUTABLE.has(meta(node).sectionType ?? '');

export const uefiModulesIdentifier: Identifier = {
  id: 'uefi-modules',
  description: 'UEFI firmware-volume modules by GUID and UI name (method uefi-module)',
  selects: isUefiModule,
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    const m = meta(file.node);
    const guid = m.guid!.toUpperCase();
    // The FFS file is the directory holding the section; its meta carries the VERSION section.
    const dir = ctx.index.get(posix.dirname(file.node.path));
    const version = typeof dir?.meta?.version === 'string' && /^\d/.test(dir.meta.version) ? (dir.meta.version as string) : undefined;
    const name = m.uiName || guid;
    let architecture: string | undefined;
    let pdbPath: string | undefined;
    try {
      const pe = await parsePe(nodeSource(ctx.index, file.node));
      architecture = pe.architecture;
      pdbPath = pe.pdbPath;
      ctx.binaries.set(file.node.path, { architecture });
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
    }
    const candidate: Candidate = {
      key: `uefi:${guid}`,
      name,
      type: 'firmware',
      purl: buildPurl({ type: 'generic', namespace: 'uefi', name, version, qualifiers: { guid } }),
      confidence: 0.8,
      path: file.node.path,
      primaryFile: true,
      evidence: { path: file.node.path, method: 'uefi-module', match: [`GUID ${guid}`, m.uiName ? `UI "${m.uiName}"` : '', m.fileType ?? '', pdbPath ? `PDB ${pdbPath}` : ''].filter(Boolean).join('; ') },
    };
    if (version) candidate.version = version;
    if (architecture) candidate.architecture = architecture;
    return [candidate];
  },
};
