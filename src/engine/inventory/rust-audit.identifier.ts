// Rust binaries built with cargo-auditable: the '.dep-v0' section (ELF and PE alike) holds zlib-compressed JSON
// {"packages":[{"name","version","source","kind","dependencies":[indices],"root"}]}, the crates compiled in.
// Build-only crates (kind 'build') are not in the binary and are left out. Purl pkg:cargo.
import { inflateSync } from 'node:zlib';
import { nodeSource, readExact, type ByteSource } from '../binaries/byte-source.js';
import { isElf, parseElf, readSection } from '../binaries/elf.js';
import { isPe, readPeSections } from '../binaries/pe.js';
import { FormatError } from '../format-error.js';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { languageCandidate } from './language-package.js';

interface AuditPackage {
  name?: unknown;
  version?: unknown;
  source?: unknown;
  kind?: unknown;
  dependencies?: unknown;
  root?: unknown;
}

const MAX_SECTION = 4 * 1024 * 1024;
const MAX_JSON = 32 * 1024 * 1024;

export const rustAuditIdentifier: Identifier = {
  id: 'rust-audit',
  description: 'Rust crates from the cargo-auditable .dep-v0 section (method rust-cargo-auditable)',
  selects: (_node, head) => isElf(head) || isPe(head),
  perFile: true, // reads only the file
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    const src = nodeSource(ctx.index, file.node);
    let section;
    try {
      section = isElf(await file.head()) ? await elfDepSection(src) : await peDepSection(src);
    } catch (error) {
      if (error instanceof FormatError) return [];
      throw error;
    }
    if (!section) return [];
    let packages: AuditPackage[];
    try {
      const json = JSON.parse(inflateSync(await section.read(), { maxOutputLength: MAX_JSON }).toString('utf8')) as { packages?: unknown };
      if (!Array.isArray(json.packages)) throw new Error('no packages array');
      packages = json.packages as AuditPackage[];
    } catch (error) {
      ctx.note({ path: file.node.path, offset: section.offset, kind: 'warning', message: `.dep-v0 section not readable: ${error instanceof Error ? error.message : String(error)}` });
      return [];
    }
    const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
    const out: Candidate[] = [];
    for (const p of packages) {
      const name = str(p.name);
      if (!name || p.kind === 'build') continue;
      const deps = Array.isArray(p.dependencies) ? p.dependencies.map((i) => str(packages[Number(i)]?.name)).filter((n): n is string => !!n) : [];
      const c = languageCandidate(
        {
          purlType: 'cargo',
          name,
          version: str(p.version),
          method: 'rust-cargo-auditable',
          match: `${name} ${str(p.version) ?? ''} (${str(p.source) ?? 'unknown source'})`,
          primaryFile: true,
          confidence: 0.95,
          type: p.root === true ? 'application' : 'library',
          dependsOn: deps.map((d) => `cargo:${d}`.toLowerCase()),
        },
        file.node,
      );
      if (c) out.push(c);
    }
    return out;
  },
};

interface DepSection {
  offset: number;
  read(): Promise<Buffer>;
}

async function elfDepSection(src: ByteSource): Promise<DepSection | undefined> {
  const section = (await parseElf(src, { dynamicSymbols: false })).sections.find((s) => s.name === '.dep-v0');
  return section && { offset: section.offset, read: () => readSection(src, section, MAX_SECTION) };
}

/**
 * Only the section table is read (not the imports and resources parsePe reads). In PE the raw data is padded to
 * the file alignment; the virtual size is the section's own length.
 */
async function peDepSection(src: ByteSource): Promise<DepSection | undefined> {
  const section = (await readPeSections(src)).find((s) => s.name === '.dep-v0');
  if (!section || section.rawSize === 0) return undefined;
  const size = Math.min(section.virtualSize || section.rawSize, section.rawSize);
  return { offset: section.rawOffset, read: () => readExact(src, section.rawOffset, size, '.dep-v0 section', MAX_SECTION) };
}
