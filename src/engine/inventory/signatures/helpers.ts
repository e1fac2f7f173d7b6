// Small constructors that keep the signature tables readable.
import { escapeRegExp as escape } from '../../regexp-escape.js';
import type { SignaturePattern, StandalonePattern, VersionSignature } from '../signature.js';

/** A literal needle whose own regex carries the version group. */
export function banner(needle: string, regex: RegExp, confidence = 0.9, hintOnly = false): SignaturePattern {
  return { needle, regex, confidence, hintOnly };
}

/**
 * A bare version string stored next to a format string of the same program (the compiler keeps them
 * adjacent): '\0 2019.78 \0 Dropbear server v%s' or 'pppd version %s \0 2.4.8 \0'.
 */
export function adjacent(needle: string, version: string, confidence = 0.8, hintOnly = false): SignaturePattern {
  const n = escape(needle);
  return { needle, regex: new RegExp(`\\0(${version})\\0{1,16}${n}|${n}[\\r\\n ]{0,4}\\0{1,16}(${version})\\0`), confidence, hintOnly };
}

/** Bare version strings in a hinted file that also contains `marker`. */
export function standalone(marker: string, version: RegExp, confidence = 0.6): StandalonePattern {
  return { marker, version, confidence };
}

export const V3 = '\\d+\\.\\d+\\.\\d+';

/** '8.4p1' → version '8.4', update 'p1' (NVD's split for OpenSSH and ntp). */
export function splitPatch(version: string): { version: string; update?: string } {
  const m = /^(\d+(?:\.\d+)*)(p\d+)$/.exec(version);
  return m ? { version: m[1], update: m[2] } : { version };
}

/** '1.3.5e' → version '1.3.5', update 'e' (ProFTPD); '4.8-1521-gfc7d0199cb' → '4.8' (git describe). */
export function splitLetter(version: string): { version: string; update?: string } {
  const m = /^(\d+(?:\.\d+)+)([a-z])$/.exec(version);
  return m ? { version: m[1], update: m[2] } : { version };
}

export function gitDescribeBase(version: string): { version: string } {
  return { version: version.replace(/-\d+-g[0-9a-f]+$/, '') };
}

/**
 * A UEFI SBAT line (the `.sbat` section's CSV: component,generation,vendor,package,version,url) whose package
 * field is `pkg` and whose version starts with a release number; vendor lines ('shim.debian,1,Debian,shim,16.1,…')
 * count too, their package revision is dropped.
 */
export function sbatLine(pkg: string, version: string): RegExp {
  return new RegExp(`\\n[a-z][\\w.-]{0,40},\\d{1,4},[^,\\n\\0]{1,80},${pkg},(${version})(?:[-+~][\\w.+~-]*)?,[a-z]+:[^,\\n\\0]{1,200}\\n`);
}

/** A family from its id, CPE (or none), patterns and other fields; the purl name is the id. */
export function family(type: VersionSignature['type'], id: string, cpe: VersionSignature['cpe'], patterns: SignaturePattern[], extra: Partial<VersionSignature> = {}): VersionSignature {
  return { id, name: id, type, ...(cpe ? { cpe } : {}), purl: { name: id }, patterns, ...extra };
}
