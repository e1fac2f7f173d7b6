// Package URLs (github.com/package-url/purl-spec): pkg:type/namespace/name@version?qualifiers, for the inventory
// (components from a package database get its ecosystem type — openwrt, deb, apk, rpm —, binaries identified by
// signature get 'generic' with the upstream project name), the reports, and the OSV matcher.
// Parsing, validation and the per-type normalisation come from packageurl-js, the purl project's JavaScript
// implementation. The string is written here: packageurl-js leaves '+' unencoded in versions and encodes ':' and
// '/' in qualifier values, while Firmscope has always published (and stored, and matched VEX statements on)
// the purl-spec percent-encoding with '+' as %2B and readable ':' and '/' in qualifier values
// ('pkg:deb/debian/libc6@2.31-13%2Bdeb11u5', '?checksum=sha256:…'); changing it would rename every Debian package.
import { PackageURL } from 'packageurl-js';

export interface PurlParts {
  type: string;
  namespace?: string;
  name: string;
  version?: string;
  qualifiers?: Record<string, string | undefined>;
}

/** A parsed purl; qualifier keys are lower-case. */
export interface Purl {
  type: string;
  namespace?: string;
  name: string;
  version?: string;
  qualifiers: Record<string, string>;
}

/** Percent-encodes a purl segment: everything but unreserved characters (and the characters in `keep`). */
function encode(value: string, keep = ''): string {
  return Array.from(Buffer.from(value, 'utf8'))
    .map((b) => {
      const c = String.fromCharCode(b);
      return /[A-Za-z0-9.\-_~]/.test(c) || keep.includes(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

/** The purl string of the parts; throws on an invalid type or a missing name (packageurl-js's checks). */
export function buildPurl(p: PurlParts): string {
  // packageurl-js would lower-case a type; a builder's type is meant to be written as the spec writes it
  if (!/^[a-z][a-z0-9.+-]*$/.test(p.type)) throw new Error(`invalid purl type '${p.type}'`);
  const qualifiers = Object.fromEntries(
    Object.entries(p.qualifiers ?? {}).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''),
  );
  const purl = new PackageURL(p.type, p.namespace || undefined, p.name, p.version || undefined, qualifiers);
  let out = `pkg:${purl.type}/`;
  if (purl.namespace) out += purl.namespace.split('/').filter(Boolean).map((s) => encode(s)).join('/') + '/';
  out += encode(purl.name);
  if (purl.version) out += '@' + encode(purl.version, ':');
  const entries = Object.entries(purl.qualifiers ?? {}).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length) out += '?' + entries.map(([k, v]) => `${k}=${encode(v, ':/')}`).join('&');
  return out;
}

/** Parses a purl string; undefined when it is not one. */
export function parsePurl(text: string): Purl | undefined {
  let purl: PackageURL;
  try {
    purl = PackageURL.fromString(text.trim());
  } catch {
    return undefined;
  }
  const parsed: Purl = { type: purl.type, name: purl.name, qualifiers: { ...purl.qualifiers } };
  if (purl.namespace) parsed.namespace = purl.namespace;
  if (purl.version) parsed.version = purl.version;
  return parsed;
}

const BY_TYPE: Record<string, string> = {
  npm: 'npm', pypi: 'PyPI', golang: 'Go', cargo: 'crates.io', maven: 'Maven', gem: 'RubyGems',
  nuget: 'NuGet', composer: 'Packagist', hex: 'Hex', pub: 'Pub', swift: 'SwiftURL', hackage: 'Hackage',
  // not an OSV ecosystem (OSV has none for OpenWrt): the name OSV-format OpenWrt advisory records use when imported
  openwrt: 'OpenWrt',
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
