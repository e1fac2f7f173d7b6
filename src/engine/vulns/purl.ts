// Package URLs (purl-spec) as far as matching needs them: type, namespace, name, version, qualifiers, and the
// OSV ecosystem a purl belongs to.

export interface Purl {
  type: string;
  namespace?: string;
  name: string;
  version?: string;
  qualifiers: Record<string, string>;
}

export function parsePurl(text: string): Purl | undefined {
  const m = /^pkg:([A-Za-z.+-][A-Za-z0-9.+-]*)\/([^?#@]+)(?:@([^?#]+))?(?:\?([^#]*))?(?:#.*)?$/.exec(text.trim());
  if (!m) return undefined;
  const segments = m[2]!.split('/').filter((s) => s !== '').map(decodeURIComponent);
  const name = segments.pop();
  if (!name) return undefined;
  const qualifiers: Record<string, string> = {};
  for (const pair of (m[4] ?? '').split('&')) {
    const eq = pair.indexOf('=');
    if (eq > 0) qualifiers[pair.slice(0, eq).toLowerCase()] = decodeURIComponent(pair.slice(eq + 1));
  }
  const purl: Purl = { type: m[1]!.toLowerCase(), name, qualifiers };
  if (segments.length > 0) purl.namespace = segments.join('/');
  if (m[3]) purl.version = decodeURIComponent(m[3]);
  return purl;
}

const BY_TYPE: Record<string, string> = {
  npm: 'npm', pypi: 'PyPI', golang: 'Go', cargo: 'crates.io', maven: 'Maven', gem: 'RubyGems',
  nuget: 'NuGet', composer: 'Packagist', hex: 'Hex', pub: 'Pub', swift: 'SwiftURL', hackage: 'Hackage',
};
const BY_DISTRO: Record<string, string> = {
  debian: 'Debian', ubuntu: 'Ubuntu', alpine: 'Alpine', 'rocky-linux': 'Rocky Linux', almalinux: 'AlmaLinux',
  redhat: 'Red Hat', opensuse: 'openSUSE', suse: 'SUSE', wolfi: 'Wolfi', chainguard: 'Chainguard',
};

/** The OSV ecosystem (without release suffix) of a purl, e.g. pkg:deb/debian/… → 'Debian'. */
export function osvEcosystem(purl: Purl): string | undefined {
  if (purl.type === 'deb' || purl.type === 'rpm' || purl.type === 'apk') {
    return purl.namespace ? BY_DISTRO[purl.namespace.toLowerCase()] : undefined;
  }
  return BY_TYPE[purl.type];
}
