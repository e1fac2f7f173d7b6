// The operating-system distribution from its release files: os-release (systemd format), OpenWrt's
// openwrt_release, lsb-release, alpine-release and debian_version.
import { posix } from 'node:path';
import type { FileIndex } from '../file-index.js';
import type { FileNode } from '../types.js';
import { buildCpe } from '../cpe.js';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { filesystemResolver } from './package-candidate.js';
import { buildPurl } from '../purl.js';

const FILES = new Set(['/etc/os-release', '/usr/lib/os-release', '/etc/openwrt_release', '/etc/lsb-release', '/etc/alpine-release', '/etc/debian_version']);

const OS_CPE: Record<string, { vendor: string; product: string }> = {
  openwrt: { vendor: 'openwrt', product: 'openwrt' },
  lede: { vendor: 'openwrt', product: 'openwrt' },
  debian: { vendor: 'debian', product: 'debian_linux' },
  ubuntu: { vendor: 'canonical', product: 'ubuntu_linux' },
  alpine: { vendor: 'alpinelinux', product: 'alpine_linux' },
  fedora: { vendor: 'fedoraproject', product: 'fedora' },
  centos: { vendor: 'centos', product: 'centos' },
  rhel: { vendor: 'redhat', product: 'enterprise_linux' },
  'openbmc-phosphor': { vendor: 'openbmc-project', product: 'openbmc' },
};

/**
 * OpenBMC names development builds after the next release and the commits since ('2.8.0-dev-309-g2e155a0-dirty',
 * '3.1.0-dev-739-gba9070d60b'): only a tagged release ('0.1.0', '2.9.0') is a CPE version, a '-dev' build is not the
 * release it leads to. Other distributions give their version as it is when it is numeric.
 */
function cpeVersionOf(id: string, version: string | undefined): string | undefined {
  if (!version) return undefined;
  if (id === 'openbmc-phosphor') return /^v?(\d+\.\d+(?:\.\d+)?)(?:-\d+-g[0-9a-f]+)?$/.exec(version)?.[1];
  return /^\d+(?:\.\d+)*$/.test(version) ? version : undefined;
}

export interface OsRelease {
  id: string;
  version?: string;
  build?: string;
  name?: string;
  /** The lines the values came from. */
  match: string;
}

/** KEY=value / KEY="value" / KEY='value' assignments (comments and blank lines ignored). */
export function parseAssignments(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!m) continue;
    let v = m[2].trim();
    if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) v = v.slice(1, -1);
    out.set(m[1], v.replace(/\\(["'\\$`])/g, '$1'));
  }
  return out;
}

export function parseReleaseFile(fsPath: string, text: string): OsRelease | undefined {
  const base = posix.basename(fsPath);
  if (base === 'alpine-release' || base === 'debian_version') {
    const v = text.trim().split('\n')[0];
    if (!/^\d[\w.~+-]*$/.test(v)) return undefined;
    return { id: base === 'alpine-release' ? 'alpine' : 'debian', version: v, match: `${base}: ${v}` };
  }
  const a = parseAssignments(text);
  const pick = (...keys: string[]): string | undefined => keys.map((k) => a.get(k)).find((v) => v !== undefined && v !== '');
  const id = pick('ID', 'DISTRIB_ID')?.toLowerCase().replace(/\s+/g, '');
  if (!id) return undefined;
  const version = pick('VERSION_ID', 'DISTRIB_RELEASE');
  const build = pick('BUILD_ID', 'DISTRIB_REVISION');
  // OpenBMC's machine (OPENBMC_TARGET_MACHINE) stays in the evidence: it names the board the image is built for.
  const keys = ['ID', 'DISTRIB_ID', 'VERSION_ID', 'DISTRIB_RELEASE', 'BUILD_ID', 'DISTRIB_REVISION', 'OPENBMC_TARGET_MACHINE'].filter((k) => a.has(k));
  return { id, version, build, name: pick('NAME', 'DISTRIB_DESCRIPTION'), match: keys.map((k) => `${k}=${a.get(k)}`).join('; ') };
}

/** The distribution of the filesystem `node` belongs to (for purl namespaces), if it has a release file. */
export async function osReleaseOf(index: FileIndex, node: FileNode): Promise<OsRelease | undefined> {
  const resolve = filesystemResolver(index, node);
  for (const p of ['/etc/os-release', '/usr/lib/os-release', '/etc/openwrt_release', '/etc/lsb-release']) {
    let found = resolve(p);
    if (found && (found.kind === 'symlink' || found.kind === 'hardlink')) found = index.resolveLink(found);
    if (found?.kind === 'file' && found.size < 65536) {
      const parsed = parseReleaseFile(p, (await index.read(found)).toString('utf8'));
      if (parsed) return parsed;
    }
  }
  return undefined;
}

/**
 * OpenWrt's release names a branch or 'SNAPSHOT'; the build revision ('r13499-7b4877c204') fixes the sources, so it
 * is part of the version ('SNAPSHOT r13499-7b4877c204', '19.07.3 r11063-85e04e9f46'). The CPE keeps the release.
 */
export function withRevision(id: string, version: string, revision: string | undefined): string {
  if ((id !== 'openwrt' && id !== 'lede') || !revision || !/^r\d+(?:[-+][0-9a-f]+)?$/.test(revision) || version.includes(revision)) return version;
  return `${version} ${revision}`;
}

export const osReleaseIdentifier: Identifier = {
  id: 'os-release',
  description: 'distribution release files (method os-release)',
  selects: (node) => FILES.has(node.fsPath) && node.size < 65536,
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    const os = parseReleaseFile(file.node.fsPath, await file.text());
    if (!os) {
      ctx.note({ path: file.node.path, kind: 'skipped', message: 'release file without a distribution id' });
      return [];
    }
    const numeric = cpeVersionOf(os.id, os.version);
    const version = os.version && withRevision(os.id, os.version, os.build);
    const cpe = OS_CPE[os.id];
    const candidate: Candidate = {
      key: `os:${os.id === 'lede' ? 'openwrt' : os.id}`,
      name: os.id,
      type: 'operating-system',
      purl: buildPurl({ type: 'generic', name: os.id, version }),
      confidence: 0.9,
      path: file.node.path,
      primaryFile: false,
      evidence: { path: file.node.path, method: 'os-release', match: os.match },
    };
    if (version) {
      candidate.version = version;
      candidate.matchVersion = version.toLowerCase();
    }
    if (cpe && numeric) candidate.cpe = buildCpe({ part: 'o', ...cpe, version: numeric });
    return [candidate];
  },
};
