// Debian-style control stanzas ("Field: value", continuation lines start with a space, records separated by
// blank lines), as used by dpkg status files and opkg/ipkg status and *.control files.

export type Stanza = Map<string, string>;

export function parseStanzas(text: string): Stanza[] {
  const out: Stanza[] = [];
  let current: Stanza = new Map();
  let last: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') {
      if (current.size) out.push(current);
      current = new Map();
      last = undefined;
      continue;
    }
    if (/^[ \t]/.test(line)) {
      if (last !== undefined) current.set(last, `${current.get(last)}\n${line.trim()}`);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    last = line.slice(0, colon).trim().toLowerCase();
    current.set(last, line.slice(colon + 1).trim());
  }
  if (current.size) out.push(current);
  return out;
}

/** Package names from a Depends/Pre-Depends field: version constraints, arch qualifiers and alternatives dropped. */
export function dependencyNames(field: string | undefined): string[] {
  if (!field) return [];
  const names = new Set<string>();
  for (const part of field.split(',')) {
    const first = part.split('|')[0].trim();
    const name = first.replace(/\s*\(.*$/, '').replace(/:[\w-]+$/, '').trim();
    if (name) names.add(name);
  }
  return [...names];
}
