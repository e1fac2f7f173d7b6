// Node.js packages: every 'node_modules/<name>/package.json' and 'node_modules/@scope/<name>/package.json' (the
// installed tree, and Debian's /usr/share/nodejs/<name>), and npm lock files ('package-lock.json', 'npm-shrinkwrap.json', 'node_modules/.package-lock.json';
// lockfileVersion 1 'dependencies' and 2/3 'packages'). Purl pkg:npm, with the scope as namespace.
import { posix } from 'node:path';
import type { FileNode } from '../types.js';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { languageCandidate } from './language-package.js';

const LOCK_FILES = new Set(['package-lock.json', 'npm-shrinkwrap.json', '.package-lock.json']);

/** An installed package's manifest: under node_modules, or Debian's /usr/share/nodejs and /usr/lib/nodejs. */
function isInstalledManifest(fsPath: string): boolean {
  return /(?:^|\/)(?:node_modules|usr\/share\/nodejs|usr\/lib\/nodejs)\/(?:@[^/]+\/)?[^/@][^/]*\/package\.json$/.test(fsPath);
}

function npmCandidate(fullName: string, version: string | undefined, license: unknown, method: string, match: string, node: FileNode, dependsOn: string[] = []): Candidate | undefined {
  const m = /^(@[^/]+)\/(.+)$/.exec(fullName);
  return languageCandidate(
    {
      purlType: 'npm',
      namespace: m?.[1],
      name: m ? m[2] : fullName,
      version,
      licenses: typeof license === 'string' && license.length < 80 ? [license] : undefined,
      method,
      match,
      dependsOn: dependsOn.map((d) => `npm:${d}`.toLowerCase()),
    },
    node,
  );
}

/** 'node_modules/a/node_modules/@s/b' → '@s/b'. */
const nameFromLockPath = (p: string): string => p.slice(p.lastIndexOf('node_modules/') + 'node_modules/'.length);

interface LockEntry {
  version?: string;
  license?: unknown;
  link?: boolean;
  dependencies?: Record<string, unknown>;
  requires?: Record<string, unknown>;
  name?: string;
}

function lockCandidates(lock: { packages?: Record<string, LockEntry>; dependencies?: Record<string, LockEntry> }, node: FileNode): Candidate[] {
  const out: Candidate[] = [];
  if (lock.packages && typeof lock.packages === 'object') {
    for (const [path, entry] of Object.entries(lock.packages)) {
      // '' is the project itself; links point at workspace folders listed under their own path.
      if (!path.includes('node_modules/') || !entry || entry.link) continue;
      const name = entry.name ?? nameFromLockPath(path);
      const c = npmCandidate(name, entry.version, entry.license, 'npm-lock', `${path} ${entry.version ?? ''}`.trim(), node, Object.keys(entry.dependencies ?? {}));
      if (c) out.push(c);
    }
    return out;
  }
  // lockfileVersion 1: nested 'dependencies' objects.
  const walk = (deps: Record<string, LockEntry> | undefined, depth: number): void => {
    if (!deps || depth > 32) return;
    for (const [name, entry] of Object.entries(deps)) {
      if (!entry || typeof entry !== 'object') continue;
      const c = npmCandidate(name, entry.version, undefined, 'npm-lock', `${name} ${entry.version ?? ''}`.trim(), node, Object.keys(entry.requires ?? {}));
      if (c) out.push(c);
      walk(entry.dependencies as Record<string, LockEntry> | undefined, depth + 1);
    }
  };
  walk(lock.dependencies, 0);
  return out;
}

export const nodePackagesIdentifier: Identifier = {
  id: 'node-packages',
  description: 'Node.js node_modules package.json manifests and npm lock files (methods npm-package-json, npm-lock)',
  selects: (node) => node.size < 16 * 1024 * 1024 && (isInstalledManifest(node.fsPath) || LOCK_FILES.has(posix.basename(node.fsPath))),
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(await file.text()) as Record<string, unknown>;
    } catch {
      ctx.note({ path: file.node.path, kind: 'skipped', message: 'not valid JSON' });
      return [];
    }
    if (!json || typeof json !== 'object') return [];
    if (LOCK_FILES.has(posix.basename(file.node.fsPath))) return lockCandidates(json, file.node);
    const name = typeof json.name === 'string' ? json.name : undefined;
    const version = typeof json.version === 'string' ? json.version : undefined;
    // Test fixtures and sub-folder manifests inside a package carry no name or version.
    if (!name || !version) return [];
    const deps = json.dependencies && typeof json.dependencies === 'object' ? Object.keys(json.dependencies) : [];
    const license = typeof json.license === 'string' ? json.license : (json.license as { type?: string } | undefined)?.type;
    const c = npmCandidate(name, version, license, 'npm-package-json', `"name": "${name}", "version": "${version}"`, file.node, deps);
    return c ? [c] : [];
  },
};
