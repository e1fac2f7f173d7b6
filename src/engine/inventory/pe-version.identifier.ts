// PE executables and DLLs: records architecture and imported DLLs for the analyzer, and identifies the product
// named by the VS_VERSIONINFO resource (ProductName/FileDescription with ProductVersion/FileVersion). A managed
// (.NET) assembly is identified by its CLI metadata instead: the Assembly table's name and version, as a NuGet
// package (pkg:nuget, as syft's .NET catalogers report them), which merges with *.deps.json records of it.
import { nodeSource } from '../binaries/byte-source.js';
import { readCliAssembly, type CliAssembly } from '../binaries/cli-metadata.js';
import { parsePe } from '../binaries/pe.js';
import { FormatError } from '../format-error.js';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { languageCandidate } from './language-package.js';
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

/** NuGet's normal form of a four-part version: a fourth part of 0 is dropped ('2.8.7.0' → '2.8.7'). */
export function nugetVersion(version: string): string {
  return version.replace(/^(\d+\.\d+\.\d+)\.0$/, '$1');
}

/** A release in a version resource string: '6.0.8.18111' → '6.0.8', '13.0.3+0a2e291c…' → '13.0.3', '2.0.7-beta.1'. */
function resourceRelease(value: string | undefined): string | undefined {
  const m = /^\s*(\d+)\.(\d+)\.(\d+)(?:\.\d+)?(-[0-9A-Za-z][0-9A-Za-z.-]{0,40})?(?:\+\S*)?\s*$/.exec(value ?? '');
  return m && !/^0\.0\.0$/.test(`${m[1]}.${m[2]}.${m[3]}`) ? `${m[1]}.${m[2]}.${m[3]}${m[4] ?? ''}` : undefined;
}

/**
 * The release of a managed assembly: its AssemblyVersion in NuGet form ('0.0.0.0' is none). Projects that pin the
 * AssemblyVersion to major.minor (build and revision 0, a binding version kept across releases) state the release
 * in the version resource instead, and that is taken (ProductVersion, the informational version, before
 * FileVersion): Newtonsoft.Json 6.0.8 is assembly 6.0.0.0 with ProductVersion 6.0.8.18111, 13.0.3 is 13.0.0.0 with
 * '13.0.3+0a2e291c…', Debian's dbus-sharp 0.8.1 is assembly 2.0.0.0 with FileVersion 0.8.1 (syft's .NET cataloger
 * reads the version resource too).
 */
export function assemblyRelease(assemblyVersion: string, productVersion?: string, fileVersion?: string): string | undefined {
  if (/^0(?:\.0)*$/.test(assemblyVersion)) return undefined;
  if (/^\d+\.\d+\.0\.0$/.test(assemblyVersion)) {
    const stated = resourceRelease(productVersion) ?? resourceRelease(fileVersion);
    if (stated) return stated;
  }
  return nugetVersion(assemblyVersion);
}

function assemblyCandidate(assembly: CliAssembly, strings: Record<string, string>, isDll: boolean, node: FileView['node']): Candidate | undefined {
  // Publisher policy assemblies ('policy.2.6.nunit.framework') only redirect bindings to another assembly.
  if (/^policy\.\d+\.\d+\./i.test(assembly.name)) return undefined;
  const version = assemblyRelease(assembly.version, strings.ProductVersion, strings.FileVersion);
  const resource = ['ProductVersion', 'FileVersion'].filter((k) => strings[k]).map((k) => `; ${k}=${strings[k]}`).join('');
  return languageCandidate(
    {
      purlType: 'nuget',
      name: assembly.name,
      version,
      method: 'dotnet-assembly',
      match: `Assembly ${assembly.name}, Version=${assembly.version}${assembly.culture ? `, Culture=${assembly.culture}` : ''}${resource}`,
      primaryFile: true,
      confidence: 0.8,
      type: isDll ? 'library' : 'application',
    },
    node,
  );
}

export const peVersionIdentifier: Identifier = {
  id: 'pe-version',
  description: 'PE version resources, import tables and .NET assembly metadata (methods pe-version-resource, dotnet-assembly)',
  selects: (_node, head) => isMz(head),
  perFile: true, // reads only the file; its binary facts and notes are cached with its candidates
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    let pe;
    try {
      pe = await parsePe(nodeSource(ctx.index, file.node));
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      return [];
    }
    let assembly: CliAssembly | undefined;
    try {
      assembly = await readCliAssembly(nodeSource(ctx.index, file.node), pe);
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      ctx.note({ path: file.node.path, kind: 'warning', message: `CLI metadata not read: ${error.message}` });
    }
    // An IL-only assembly runs on any architecture, whatever its PE machine field says.
    ctx.binaries.set(file.node.path, { ...(assembly?.anyCpu ? {} : { architecture: pe.architecture }), needed: pe.imports.map((i) => i.dll) });
    const strings = pe.version?.strings ?? {};
    if (assembly) {
      const candidate = assemblyCandidate(assembly, strings, pe.isDll, file.node);
      if (candidate && !assembly.anyCpu) candidate.architecture = pe.architecture;
      return candidate ? [candidate] : [];
    }
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
