// Debian package versions ([epoch:]upstream[-revision]) compared as dpkg does (deb-version(7)): '~' sorts
// before everything, even the end of the string; letters before other characters. Used for OSV Debian/Ubuntu ranges.
import type { VersionScheme } from './version.js';

function order(c: string | undefined): number {
  if (c === undefined) return 0;
  if (c === '~') return -1;
  if (/[A-Za-z]/.test(c)) return c.charCodeAt(0);
  return c.charCodeAt(0) + 256;
}

/** dpkg's verrevcmp: one version part against another (opkg's pkg_version.c uses the same algorithm). */
export function verrevcmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let firstDiff = 0;
    while ((i < a.length && !/\d/.test(a[i]!)) || (j < b.length && !/\d/.test(b[j]!))) {
      const ac = i < a.length && !/\d/.test(a[i]!) ? order(a[i]) : 0;
      const bc = j < b.length && !/\d/.test(b[j]!) ? order(b[j]) : 0;
      if (ac !== bc) return ac - bc;
      i++;
      j++;
    }
    while (a[i] === '0') i++;
    while (b[j] === '0') j++;
    while (i < a.length && /\d/.test(a[i]!) && j < b.length && /\d/.test(b[j]!)) {
      if (!firstDiff) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (i < a.length && /\d/.test(a[i]!)) return 1;
    if (j < b.length && /\d/.test(b[j]!)) return -1;
    if (firstDiff) return firstDiff;
  }
  return 0;
}

interface DebVersion {
  epoch: number;
  upstream: string;
  revision: string;
}

export function parseDebVersion(v: string): DebVersion | undefined {
  const m = /^(?:(\d+):)?([0-9][A-Za-z0-9.+~:-]*?)(?:-([A-Za-z0-9.+~]+))?$/.exec(v.trim());
  if (!m) return undefined;
  return { epoch: m[1] ? Number(m[1]) : 0, upstream: m[2]!, revision: m[3] ?? '' };
}

export const dpkgScheme: VersionScheme = {
  id: 'dpkg',
  compare(a, b) {
    const va = parseDebVersion(a);
    const vb = parseDebVersion(b);
    if (!va || !vb) return undefined;
    if (va.epoch !== vb.epoch) return va.epoch - vb.epoch;
    return verrevcmp(va.upstream, vb.upstream) || verrevcmp(va.revision, vb.revision);
  },
};
