// One installed package from a database (opkg, dpkg, apk) as a candidate: ecosystem purl, family CPE at the
// upstream version, dependencies by package name, and the files the database says it installed.
import type { FileIndex } from '../file-index.js';
import type { Component, FileNode } from '../types.js';
import type { Candidate } from './identifier.js';
import { familyCpe, familyOf, upstreamVersion } from './package-families.js';
import { buildPurl } from '../purl.js';

export interface PackageRecord {
  name: string;
  version: string;
  architecture?: string;
  license?: string;
  supplier?: string;
  depends: string[];
  provides: string[];
  /** Absolute paths inside the package's filesystem, as listed by the database. */
  files: string[];
  /** The raw record lines shown as evidence. */
  match: string;
}

export interface Ecosystem {
  purlType: 'openwrt' | 'deb' | 'apk' | 'rpm';
  namespace?: string;
  method: string;
}

/** Maps filesystem paths to the FileNode paths of the same extracted filesystem as the database node. */
export function filesystemResolver(index: FileIndex, db: FileNode): (fsPath: string) => FileNode | undefined {
  const prefix = db.path.slice(0, db.path.length - db.fsPath.length + 1);
  return (fsPath) => index.get(prefix + fsPath.replace(/^\/+/, ''));
}

function componentType(name: string): Component['type'] {
  if (name === 'kernel' || name.startsWith('linux-image')) return 'operating-system';
  if (/^(lib|kmod-)/.test(name)) return 'library';
  return 'application';
}

export function packageCandidate(record: PackageRecord, db: FileNode, eco: Ecosystem, resolve: (fsPath: string) => FileNode | undefined): Candidate {
  const family = familyOf(record.name);
  const upstream = upstreamVersion(record.version);
  const files = record.files.map((f) => resolve(f)).filter((n): n is FileNode => n !== undefined && n.kind === 'file').map((n) => n.path);
  const candidate: Candidate = {
    key: family?.id ?? `package:${record.name}`,
    name: record.name,
    version: record.version,
    type: family && record.name === 'kernel' ? 'operating-system' : componentType(record.name),
    purl: buildPurl({ type: eco.purlType, namespace: eco.namespace, name: record.name, version: record.version, qualifiers: { arch: record.architecture } }),
    confidence: 0.95,
    path: db.path,
    primaryFile: false,
    evidence: { path: db.path, method: eco.method, match: record.match },
    dependsOn: record.depends,
    provides: [record.name, ...record.provides],
    files,
  };
  const cpe = familyCpe(family, upstream);
  if (cpe) candidate.cpe = cpe;
  if (family && upstream) candidate.matchVersion = upstream;
  if (record.architecture) candidate.architecture = record.architecture;
  if (record.license) candidate.licenses = [record.license];
  if (record.supplier) candidate.supplier = record.supplier;
  return candidate;
}
