// Header-time version strings: a program built against a library's headers keeps the headers' version string
// ('OpenSSL 3.0.2 15 Mar 2022' from OPENSSL_VERSION_TEXT) while it loads the shared library the image ships,
// which may be another release. When the program NEEDs a library of the same family that the image provides,
// the string is evidence of the build, not a second component: it is attributed to the library, and a
// different version is reported as a mismatch warning.
import { posix } from 'node:path';
import type { Component, Problem } from '../types.js';
import type { BinaryFacts } from './identifier.js';
import { libraryName } from './library-names.js';
import type { StampedCandidate } from './merge.js';

export interface HeaderVersion {
  candidate: StampedCandidate;
  /** The NEEDed sonames of the candidate's family that the image provides. */
  sonames: string[];
  /** Files of the image providing those sonames. */
  providers: string[];
}

const familyOf = (name: string | undefined): string | undefined => (name ? libraryName(name)?.family : undefined);

/** Splits version-signature candidates found in programs that load their family's library from the image. */
export function separateHeaderVersions(candidates: StampedCandidate[], binaries: Map<string, BinaryFacts>): { kept: StampedCandidate[]; header: HeaderVersion[] } {
  // soname → files providing it (from the ELF identifier's SONAME and the library's own file name).
  const provided = new Map<string, Set<string>>();
  for (const [path, facts] of binaries) {
    for (const name of [facts.soname, posix.basename(path)]) {
      if (!name) continue;
      const set = provided.get(name) ?? new Set<string>();
      set.add(path);
      provided.set(name, set);
    }
  }
  const kept: StampedCandidate[] = [];
  const header: HeaderVersion[] = [];
  for (const c of candidates) {
    const facts = c.foundBy === 'version-signatures' && c.primaryFile && c.version !== undefined ? binaries.get(c.path) : undefined;
    // A library of the family itself (libssl NEEDs libcrypto) carries its own version.
    const own = facts && (familyOf(facts.soname) === c.key || familyOf(posix.basename(c.path)) === c.key);
    const sonames = facts && !own ? (facts.needed ?? []).filter((n) => familyOf(n) === c.key && provided.has(n)) : [];
    const providers = [...new Set(sonames.flatMap((n) => [...provided.get(n)!]))].filter((p) => p !== c.path);
    if (providers.length) header.push({ candidate: c, sonames, providers });
    else kept.push(c);
  }
  return { kept, header };
}

/** The component of the library the program loads (its primary file first, else a package listing it). */
export function ownerOf(h: HeaderVersion, components: Component[], primaryPaths: (c: Component) => string[]): Component | undefined {
  return components.find((comp) => primaryPaths(comp).some((p) => h.providers.includes(p))) ?? components.find((comp) => comp.paths.some((p) => h.providers.includes(p)));
}

/** Adds each header version as evidence to the component of its library; warns when the versions differ. */
export function attributeHeaderVersions(header: HeaderVersion[], components: Component[], primaryPaths: (c: Component) => string[], problems: Problem[]): void {
  for (const h of header) {
    const { candidate, sonames } = h;
    const owner = ownerOf(h, components, primaryPaths);
    if (!owner) continue;
    owner.evidence.push({
      path: candidate.path,
      method: 'build-header-version',
      match: `${candidate.evidence.match ?? candidate.version} (headers of the build; the program loads ${sonames.join(', ')})`,
      offset: candidate.evidence.offset,
    });
    const loaded = owner.version;
    if (loaded !== undefined && !sameRelease(loaded, candidate.version!)) {
      problems.push({
        path: candidate.path,
        source: candidate.foundBy,
        kind: 'warning',
        message: `${candidate.key}: built with ${candidate.name} ${candidate.version} headers but loads ${sonames.join(', ')} of ${owner.name} ${loaded}; ${loaded} is the version in use`,
      });
    }
  }
}

/** '3.0.11' and '3.0.11-1~deb12u2' are one release (package versions carry a distribution revision). */
function sameRelease(a: string, b: string): boolean {
  const base = (v: string): string => v.replace(/^\d+:/, '').replace(/-[^-]*$/, '').toLowerCase();
  return a === b || base(a) === base(b) || base(a) === b.toLowerCase() || a.toLowerCase() === base(b);
}
