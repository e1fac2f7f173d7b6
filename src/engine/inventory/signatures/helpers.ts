// Small constructors that keep the signature tables readable.
import type { SignaturePattern, StandalonePattern } from '../signature.js';

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
