// RPM versions ([epoch:]version[-release]) compared as rpmvercmp does: alternating digit and letter segments,
// digits newer than letters, '~' before anything, '^' after the base. Used for OSV Red Hat/Rocky/Alma ranges.
import type { VersionScheme } from './version.js';

function rpmvercmp(a: string, b: string): number {
  if (a === b) return 0;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while (i < a.length && !/[A-Za-z0-9~^]/.test(a[i]!)) i++;
    while (j < b.length && !/[A-Za-z0-9~^]/.test(b[j]!)) j++;
    for (const mark of ['~', '^']) {
      if (a[i] === mark || b[j] === mark) {
        if (a[i] !== mark) return mark === '~' ? 1 : i >= a.length ? -1 : 1;
        if (b[j] !== mark) return mark === '~' ? -1 : j >= b.length ? 1 : -1;
        i++;
        j++;
      }
    }
    if (i >= a.length || j >= b.length) break;
    const numeric = /\d/.test(a[i]!);
    const re = numeric ? /^\d+/ : /^[A-Za-z]+/;
    const sa = re.exec(a.slice(i))?.[0] ?? '';
    const sb = re.exec(b.slice(j))?.[0] ?? '';
    if (sb === '') return numeric ? 1 : -1;
    i += sa.length;
    j += sb.length;
    if (numeric) {
      const na = sa.replace(/^0+/, '');
      const nb = sb.replace(/^0+/, '');
      if (na.length !== nb.length) return na.length - nb.length;
      if (na !== nb) return na < nb ? -1 : 1;
    } else if (sa !== sb) return sa < sb ? -1 : 1;
  }
  const ra = i < a.length;
  const rb = j < b.length;
  return ra === rb ? 0 : ra ? 1 : -1;
}

function split(v: string): [number, string, string] | undefined {
  const m = /^(?:(\d+):)?([^-\s]+)(?:-([^\s]+))?$/.exec(v.trim());
  return m ? [m[1] ? Number(m[1]) : 0, m[2]!, m[3] ?? ''] : undefined;
}

export const rpmScheme: VersionScheme = {
  id: 'rpm',
  compare(a, b) {
    const va = split(a);
    const vb = split(b);
    if (!va || !vb) return undefined;
    if (va[0] !== vb[0]) return va[0] - vb[0];
    const c = rpmvercmp(va[1], vb[1]);
    if (c !== 0 || va[2] === '' || vb[2] === '') return c;
    return rpmvercmp(va[2], vb[2]);
  },
};
