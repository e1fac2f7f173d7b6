// One package of a language ecosystem (PyPI, npm, Go modules, crates, Maven, Composer, …) as a candidate, as
// syft's catalogers report them: the ecosystem's purl, the record's file as evidence. Packages of different
// ecosystems never merge with each other or with binary families (the key carries the purl type).
import type { FileNode } from '../types.js';
import type { Candidate } from './identifier.js';
import { buildPurl } from '../purl.js';

export interface LanguagePackage {
  purlType: string;
  namespace?: string;
  name: string;
  version?: string;
  licenses?: string[];
  /** Evidence method, e.g. 'python-dist-info'. */
  method: string;
  match: string;
  /** True when `node` is the package's own code (a binary), false for a metadata record. */
  primaryFile?: boolean;
  confidence?: number;
  dependsOn?: string[];
  type?: Candidate['type'];
  cpe?: string;
}

const VERSION = /^[\w][\w.+~:-]{0,63}$/;

export function languageCandidate(p: LanguagePackage, node: FileNode): Candidate | undefined {
  const name = p.name.trim();
  if (!name || name.length > 214) return undefined;
  const version = p.version?.trim();
  const key = `${p.purlType}:${p.namespace ? `${p.namespace}/` : ''}${name}`.toLowerCase();
  // Go module paths split at the last '/' into purl namespace and name ('github.com/pkg/errors').
  const slash = p.purlType === 'golang' && !p.namespace ? name.lastIndexOf('/') : -1;
  const purlParts = slash > 0 ? { namespace: name.slice(0, slash), name: name.slice(slash + 1) } : { namespace: p.namespace, name };
  const candidate: Candidate = {
    key,
    name: p.namespace ? `${p.namespace}/${name}` : name,
    type: p.type ?? 'library',
    purl: buildPurl({ type: p.purlType, ...purlParts, version: version && VERSION.test(version) ? version : undefined }),
    confidence: p.confidence ?? 0.9,
    path: node.path,
    primaryFile: p.primaryFile ?? false,
    evidence: { path: node.path, method: p.method, match: p.match.slice(0, 200) },
    provides: [key],
  };
  if (version && VERSION.test(version)) candidate.version = version;
  if (p.licenses?.length) candidate.licenses = p.licenses;
  if (p.dependsOn?.length) candidate.dependsOn = p.dependsOn;
  if (p.cpe) candidate.cpe = p.cpe;
  return candidate;
}

/** RFC 822-style header fields (Python METADATA/PKG-INFO, JAR manifests), up to the first blank line. */
export function headerFields(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let last: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (line === '') break;
    if (/^[ \t]/.test(line) && last) {
      const values = out.get(last)!;
      values[values.length - 1] += line.replace(/^[ \t]/, '');
      continue;
    }
    const m = /^([A-Za-z][\w-]*):\s?(.*)$/.exec(line);
    if (!m) continue;
    last = m[1].toLowerCase();
    out.set(last, [...(out.get(last) ?? []), m[2].trim()]);
  }
  return out;
}
