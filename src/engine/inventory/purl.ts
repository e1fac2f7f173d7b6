// Package URLs (github.com/package-url/purl-spec): pkg:type/namespace/name@version?qualifiers. Components from a
// package database get its ecosystem type (openwrt, deb, apk, rpm); binaries identified by signature get
// 'generic' with the upstream project name.

/** Percent-encodes a purl segment: everything but unreserved characters (and ':' kept readable in versions). */
function encode(value: string, keep = ''): string {
  return Array.from(Buffer.from(value, 'utf8'))
    .map((b) => {
      const c = String.fromCharCode(b);
      return /[A-Za-z0-9.\-_~]/.test(c) || keep.includes(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

export interface PurlParts {
  type: string;
  namespace?: string;
  name: string;
  version?: string;
  qualifiers?: Record<string, string | undefined>;
}

export function buildPurl(p: PurlParts): string {
  if (!/^[a-z][a-z0-9.+-]*$/.test(p.type)) throw new Error(`invalid purl type '${p.type}'`);
  if (!p.name) throw new Error('a purl needs a name');
  let out = `pkg:${p.type}/`;
  if (p.namespace) out += p.namespace.split('/').filter(Boolean).map((s) => encode(s)).join('/') + '/';
  out += encode(p.name);
  if (p.version) out += '@' + encode(p.version, ':');
  const qualifiers = Object.entries(p.qualifiers ?? {})
    .filter((e): e is [string, string] => e[1] !== undefined && e[1] !== '')
    .sort(([a], [b]) => a.localeCompare(b));
  if (qualifiers.length) out += '?' + qualifiers.map(([k, v]) => `${k.toLowerCase()}=${encode(v, ':/')}`).join('&');
  return out;
}
