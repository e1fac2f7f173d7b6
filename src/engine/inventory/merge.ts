// Turns the identifiers' candidates into the image's components: conflicting versions of one family in one
// file are resolved by confidence (the loser is reported), a package-database record and the binary it
// installed become one component, versionless sightings join the versioned component that owns their file, and
// refs are made unique.
import type { Component, Evidence, Problem } from '../types.js';
import type { Candidate } from './identifier.js';

export interface StampedCandidate extends Candidate {
  foundBy: string;
}

export interface MergeResult {
  components: Component[];
  /** Component ref → its candidates' dependsOn names and provides names, resolved by the analyzer. */
  links: Map<string, { dependsOn: Set<string>; provides: Set<string>; primaryPaths: string[] }>;
  problems: Problem[];
}

const mv = (c: StampedCandidate): string | undefined => c.matchVersion ?? c.version;

/** Keeps, per file and family, only the best-supported version; versionless sightings stay. */
function resolveConflicts(candidates: StampedCandidate[], problems: Problem[]): StampedCandidate[] {
  const groups = new Map<string, StampedCandidate[]>();
  for (const c of candidates) {
    if (!c.primaryFile || mv(c) === undefined) continue;
    const k = `${c.key}\0${c.path}`;
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  const dropped = new Set<StampedCandidate>();
  const versionlessCopies: StampedCandidate[] = [];
  for (const group of groups.values()) {
    const versions = new Set(group.map(mv));
    if (versions.size < 2) continue;
    const top = Math.max(...group.map((c) => c.confidence));
    const leaders = new Set(group.filter((c) => c.confidence === top).map(mv));
    // Equally strong evidence for different versions: the most specific one when it refines all the others
    // (sshd shows both "OpenSSH_9.2" and "OpenSSH_9.2p1"), else the family without a version.
    const kept = leaders.size === 1 ? [...leaders][0] : refiningVersion([...leaders] as string[]);
    for (const c of group) {
      if (kept !== undefined && mv(c) === kept) continue;
      dropped.add(c);
      // a coarser form of the version kept ("9.2" beside "9.2p1") is the same release, not a conflict
      if (kept !== undefined && refiningVersion([mv(c)!, kept]) === kept) continue;
      problems.push({
        path: c.path,
        source: c.foundBy,
        kind: 'warning',
        message:
          kept === undefined
            ? `${c.key}: equally supported versions ${[...leaders].join(', ')}; version ${c.version} (${c.evidence.method}) not reported`
            : `${c.key}: version ${c.version} (${c.evidence.method}) conflicts with ${kept} (confidence ${top}); kept ${kept}`,
      });
      if (kept === undefined) versionlessCopies.push({ ...c, version: undefined, matchVersion: undefined, cpe: undefined, purl: c.purl?.replace(/@[^?#]*/, '') });
    }
  }
  return [...candidates.filter((c) => !dropped.has(c)), ...versionlessCopies];
}

/**
 * The version that all the others are prefixes of, ending where a version part ends ("9.2" of "9.2p1" and of
 * "9.2.1", not "9.2" of "9.20"); undefined when they disagree.
 */
export function refiningVersion(versions: string[]): string | undefined {
  const longest = versions.reduce((a, b) => (b.length > a.length ? b : a));
  // a prefix that stops between two digits is another number ("9.2" of "9.20"), not a coarser version
  const splitsNumber = (v: string) => /[0-9]$/.test(v) && /^[0-9]/.test(longest.slice(v.length));
  const refines = (v: string) => v === longest || (longest.startsWith(v) && !splitsNumber(v));
  return versions.every(refines) ? longest : undefined;
}

function addEvidence(list: Evidence[], e: Evidence): void {
  if (!list.some((x) => x.path === e.path && x.method === e.method && x.match === e.match)) list.push(e);
}

interface Draft {
  key: string;
  /** Set for drafts started by a package-database record. */
  packageName?: string;
  component: Component;
  matchVersion?: string;
  primaryPaths: string[];
  dependsOn: Set<string>;
  provides: Set<string>;
  methods: Set<string>;
}

function absorb(d: Draft, c: StampedCandidate): void {
  const comp = d.component;
  // The first candidate (a package database when there is one) names the component; later ones fill gaps.
  comp.cpe ??= c.cpe;
  comp.purl ??= c.purl;
  comp.supplier ??= c.supplier;
  if (c.licenses?.length && !comp.licenses) comp.licenses = c.licenses;
  comp.architecture ??= c.architecture;
  for (const p of [c.path, ...(c.files ?? [])]) if (!comp.paths.includes(p)) comp.paths.push(p);
  if (c.primaryFile && !d.primaryPaths.includes(c.path)) d.primaryPaths.push(c.path);
  addEvidence(comp.evidence, c.evidence);
  if (!comp.foundBy.includes(c.foundBy)) comp.foundBy.push(c.foundBy);
  for (const n of c.dependsOn ?? []) d.dependsOn.add(n);
  for (const n of c.provides ?? []) d.provides.add(n);
  // Independent identifiers agreeing raise confidence a little.
  const independent = !d.methods.has(c.foundBy);
  d.methods.add(c.foundBy);
  comp.confidence = Math.min(1, Math.max(comp.confidence, c.confidence) + (independent && d.methods.size > 1 ? 0.05 : 0));
  comp.confidence = Math.round(comp.confidence * 100) / 100;
}

function draftFrom(c: StampedCandidate): Draft {
  const component: Component = { ref: '', name: c.name, type: c.type, confidence: c.confidence, paths: [], evidence: [], foundBy: [] };
  if (c.version !== undefined) component.version = c.version;
  const d: Draft = { key: c.key, component, matchVersion: mv(c), primaryPaths: [], dependsOn: new Set(), provides: new Set(), methods: new Set() };
  absorb(d, c);
  component.confidence = c.confidence;
  return d;
}

export function mergeCandidates(input: StampedCandidate[]): MergeResult {
  const problems: Problem[] = [];
  const candidates = resolveConflicts(input, problems);
  // Per family and upstream version: one draft per database package, binaries join the package that lists them.
  const drafts = new Map<string, Draft[]>();
  // Databases first, so their package identity leads the merged component.
  const ordered = [...candidates].sort((a, b) => Number(a.primaryFile) - Number(b.primaryFile));
  const versionless: StampedCandidate[] = [];
  for (const c of ordered) {
    const v = mv(c);
    if (v === undefined) {
      versionless.push(c);
      continue;
    }
    const k = `${c.key}@${v}`;
    const list = drafts.get(k) ?? [];
    const target = c.primaryFile ? (list.find((d) => d.component.paths.includes(c.path)) ?? list[0]) : list.find((d) => d.packageName === c.name);
    if (target) absorb(target, c);
    else {
      const d = draftFrom(c);
      if (!c.primaryFile) d.packageName = c.name;
      list.push(d);
    }
    drafts.set(k, list);
  }
  const versioned = [...drafts.values()].flat();
  const bare = new Map<string, Draft>();
  for (const c of versionless) {
    // The versioned draft of the same family in that file, else the package whose database lists the file.
    const owner =
      versioned.find((d) => d.key === c.key && d.component.paths.includes(c.path)) ??
      versioned.find((d) => d.packageName !== undefined && d.component.paths.includes(c.path)) ??
      soleVersion(versioned, c.key);
    if (owner) {
      absorb(owner, c);
      continue;
    }
    const d = bare.get(c.key);
    if (d) absorb(d, c);
    else bare.set(c.key, draftFrom(c));
  }
  const all = [...versioned, ...bare.values()];
  const taken = new Set<string>();
  const links: MergeResult['links'] = new Map();
  for (const d of all) {
    const base = `${d.component.name}@${d.component.version ?? ''}`.toLowerCase().replace(/\s+/g, '-');
    let ref = base;
    for (let n = 2; taken.has(ref); n++) ref = `${base}#${n}`;
    taken.add(ref);
    d.component.ref = ref;
    links.set(ref, { dependsOn: d.dependsOn, provides: d.provides, primaryPaths: d.primaryPaths });
  }
  return { components: all.map((d) => d.component), links, problems };
}

/** The only versioned draft of a family in the image, if there is exactly one. */
function soleVersion(versioned: Draft[], key: string): Draft | undefined {
  const same = versioned.filter((d) => d.key === key);
  return same.length === 1 ? same[0] : undefined;
}
