// Java packages: Maven's 'META-INF/maven/<groupId>/<artifactId>/pom.properties' (groupId, artifactId, version)
// and, where no Maven record exists, the JAR manifest 'META-INF/MANIFEST.MF' (Implementation-Title/-Version,
// Bundle-SymbolicName/-Version). Both are read wherever the unpacker extracted a JAR. Purl pkg:maven.
import { posix } from 'node:path';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { headerFields, languageCandidate } from './language-package.js';

function properties(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([\w.-]+)\s*[=:]\s*(.*?)\s*$/.exec(line);
    if (m && !line.trimStart().startsWith('#')) out.set(m[1], m[2]);
  }
  return out;
}

export const javaArchivesIdentifier: Identifier = {
  id: 'java-archives',
  description: 'Maven pom.properties and JAR MANIFEST.MF (methods maven-pom-properties, jar-manifest)',
  selects: (node) => node.size < 1024 * 1024 && (/META-INF\/maven\/[^/]+\/[^/]+\/pom\.properties$/.test(node.fsPath) || node.fsPath.endsWith('META-INF/MANIFEST.MF')),
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    const text = await file.text();
    if (file.node.fsPath.endsWith('pom.properties')) {
      const p = properties(text);
      const group = p.get('groupId');
      const artifact = p.get('artifactId');
      if (!group || !artifact) return [];
      const c = languageCandidate({ purlType: 'maven', namespace: group, name: artifact, version: p.get('version'), method: 'maven-pom-properties', match: `groupId=${group}; artifactId=${artifact}; version=${p.get('version') ?? ''}` }, file.node);
      return c ? [c] : [];
    }
    // A manifest of a JAR that also carries a Maven record is described by that record.
    const metaInf = posix.dirname(file.node.path);
    if (ctx.index.nodes.some((n) => n.path.startsWith(`${metaInf}/maven/`) && n.path.endsWith('/pom.properties'))) return [];
    const f = headerFields(text);
    const name = f.get('bundle-symbolicname')?.[0]?.split(';')[0] ?? f.get('implementation-title')?.[0];
    const version = f.get('bundle-version')?.[0] ?? f.get('implementation-version')?.[0];
    if (!name || !version) return [];
    const vendor = f.get('implementation-vendor-id')?.[0];
    const c = languageCandidate({ purlType: 'maven', namespace: vendor, name: name.trim(), version, method: 'jar-manifest', match: `${name}; ${version}`, confidence: 0.7 }, file.node);
    return c ? [c] : [];
  },
};
