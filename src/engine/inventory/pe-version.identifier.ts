// PE executables and DLLs: records architecture and imported DLLs for the analyzer, and identifies the product
// named by the VS_VERSIONINFO resource (ProductName/FileDescription with ProductVersion/FileVersion).
import { nodeSource } from '../binaries/byte-source.js';
import { parsePe } from '../binaries/pe.js';
import { FormatError } from '../format-error.js';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { familyOf } from './package-families.js';
import { buildPurl } from '../purl.js';
import { candidateFromHit } from './version-signatures.identifier.js';

const isMz = (head: Buffer): boolean => head.length >= 64 && head[0] === 0x4d && head[1] === 0x5a;

/** The release inside a version string: '6.02', '7, 80, 0, 1' → '7.80.0.1', '1.2.3 (build 4)' → '1.2.3'. */
export function versionFromString(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const m = /^\s*v?(\d+(?:\s*[.,]\s*\d+){0,3})/.exec(value);
  if (!m) return undefined;
  const v = m[1].replace(/\s*[.,]\s*/g, '.');
  return /^0(?:\.0)*$/.test(v) ? undefined : v;
}

export const peVersionIdentifier: Identifier = {
  id: 'pe-version',
  description: 'PE version resources and import tables (method pe-version-resource)',
  selects: (_node, head) => isMz(head),
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    let pe;
    try {
      pe = await parsePe(nodeSource(ctx.index, file.node));
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      return [];
    }
    ctx.binaries.set(file.node.path, { architecture: pe.architecture, needed: pe.imports.map((i) => i.dll) });
    const strings = pe.version?.strings ?? {};
    const product = strings.ProductName ?? strings.FileDescription;
    const version = versionFromString(strings.ProductVersion) ?? versionFromString(strings.FileVersion) ?? versionFromString(pe.version?.productVersion) ?? versionFromString(pe.version?.fileVersion);
    if (!product || !version) return [];
    const match = Object.entries(strings)
      .filter(([k]) => ['CompanyName', 'ProductName', 'FileDescription', 'ProductVersion', 'FileVersion', 'OriginalFilename'].includes(k))
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
    const family = familyOf(product.trim().toLowerCase().replace(/\s+/g, '-'));
    let candidate: Candidate;
    if (family) {
      candidate = candidateFromHit(family, { version, match, offset: 0, confidence: 0.7 }, file.node);
    } else {
      const name = product.trim().slice(0, 100);
      candidate = {
        key: `pe:${name.toLowerCase()}`,
        name,
        version,
        type: pe.isDll ? 'library' : 'application',
        purl: buildPurl({ type: 'generic', name, version }),
        confidence: 0.7,
        path: file.node.path,
        primaryFile: true,
        evidence: { path: file.node.path, method: 'pe-version-resource', match },
      };
      if (strings.CompanyName) candidate.supplier = strings.CompanyName;
    }
    candidate.evidence = { path: file.node.path, method: 'pe-version-resource', match };
    candidate.architecture = pe.architecture;
    return [candidate];
  },
};
