// ELF metadata: records each ELF file's architecture, SONAME, DT_NEEDED and build-id for the analyzer
// (dependencies, architecture, evidence), and identifies shared libraries by SONAME and file name.
import { posix } from 'node:path';
import { nodeSource } from '../binaries/byte-source.js';
import { isElf, parseElf } from '../binaries/elf.js';
import { FormatError } from '../format-error.js';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import type { VersionSignature } from './signature.js';
import { familyById } from './package-families.js';
import { familyFromVersionDefinitions, libraryName } from './library-names.js';
import { candidateFromHit } from './version-signatures.identifier.js';

export const elfMetadataIdentifier: Identifier = {
  id: 'elf-metadata',
  description: 'ELF SONAME, library file names, DT_NEEDED and build-id (methods elf-soname, library-file-name)',
  selects: (_node, head) => isElf(head),
  perFile: true, // reads only the file; its binary facts and notes are cached with its candidates
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    let elf;
    try {
      elf = await parseElf(nodeSource(ctx.index, file.node), { dynamicSymbols: false });
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      ctx.note({ path: file.node.path, kind: 'skipped', message: `not parsed as ELF: ${error.message}` });
      return [];
    }
    ctx.binaries.set(file.node.path, { architecture: elf.architecture, soname: elf.soname, needed: elf.needed, buildId: elf.buildId });
    const fileName = posix.basename(file.node.fsPath);
    // The file name may carry the release; the SONAME at least names the family.
    const byFile = libraryName(fileName);
    const bySoname = elf.soname ? libraryName(elf.soname) : undefined;
    const hit = byFile?.version ? byFile : (bySoname ?? byFile);
    if (hit) {
      const family = familyById(hit.family);
      if (!family) return [];
      const method = hit === byFile && byFile.version ? 'library-file-name' : 'elf-soname';
      const match = method === 'library-file-name' ? fileName : (elf.soname ?? fileName);
      return [libraryCandidate(family, hit.version, method, match, file, elf.architecture, [elf.soname, fileName])];
    }
    // A renamed or unlisted library may still define a project's symbol versions.
    const defs = familyFromVersionDefinitions(elf.versionDefs);
    const family = defs ? familyById(defs.family) : undefined;
    if (!defs || !family || elf.type !== 'shared-object') return [];
    const match = `version definitions ${elf.versionDefs.slice(0, 6).join(', ')}`;
    return [libraryCandidate(family, undefined, 'elf-version-definitions', match, file, elf.architecture, [elf.soname, fileName])];
  },
};

function libraryCandidate(
  family: VersionSignature,
  version: string | undefined,
  method: string,
  match: string,
  file: FileView,
  architecture: string,
  provides: Array<string | undefined>,
): Candidate {
  const candidate = candidateFromHit(family, { version, match, offset: 0, confidence: version ? 0.75 : 0.5 }, file.node);
  candidate.evidence = { path: file.node.path, method, match };
  candidate.architecture = architecture;
  candidate.provides = provides.filter((n): n is string => !!n);
  return candidate;
}
