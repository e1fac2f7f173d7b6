// Alpine apk database: /lib/apk/db/installed, one record per package ("P:name", "V:version", "A:arch",
// "L:license", "D:depends", "p:provides", "F:dir" followed by "R:file" entries), records separated by blank lines.
import picomatch from 'picomatch';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { osReleaseOf } from './os-release.identifier.js';
import { filesystemResolver, packageCandidate, type PackageRecord } from './package-candidate.js';

const isInstalled = picomatch(['**/lib/apk/db/installed'], { dot: true });

/** apk dependency tokens: 'so:libc.musl-x86_64.so.1', 'cmd:sh', 'pc:zlib', 'name>=1.2' → the provided names. */
function apkNames(field: string | undefined): string[] {
  if (!field) return [];
  return field
    .split(/\s+/)
    .filter((t) => t && !t.startsWith('!'))
    .map((t) => t.replace(/^(so|cmd|pc):/, '').replace(/[<>=~].*$/, ''))
    .filter(Boolean);
}

export function parseApkInstalled(text: string): { records: PackageRecord[]; malformed: number } {
  const records: PackageRecord[] = [];
  let malformed = 0;
  for (const block of text.split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    const files: string[] = [];
    let dir = '';
    for (const line of block.split('\n')) {
      const m = /^([A-Za-z]):(.*)$/.exec(line);
      if (!m) continue;
      const [, key, value] = m;
      if (key === 'F') dir = value;
      else if (key === 'R') files.push(`/${dir ? `${dir}/` : ''}${value}`);
      else if (!fields.has(key)) fields.set(key, value);
    }
    if (fields.size === 0) continue;
    const name = fields.get('P');
    const version = fields.get('V');
    if (!name || !version) {
      malformed++;
      continue;
    }
    records.push({
      name,
      version,
      architecture: fields.get('A'),
      license: fields.get('L'),
      supplier: fields.get('m'),
      depends: apkNames(fields.get('D')),
      provides: apkNames(fields.get('p')),
      files,
      match: `P:${name} V:${version}${fields.get('o') ? ` o:${fields.get('o')}` : ''}${fields.get('A') ? ` A:${fields.get('A')}` : ''}`,
    });
  }
  return { records, malformed };
}

export const apkInstalledIdentifier: Identifier = {
  id: 'apk-installed',
  description: 'Alpine apk installed database (method apk-installed)',
  selects: (node) => isInstalled(node.fsPath),
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    const { records, malformed } = parseApkInstalled(await file.text());
    if (malformed) ctx.note({ path: file.node.path, kind: 'warning', message: `${malformed} record(s) without P: or V: skipped` });
    if (records.length === 0) ctx.note({ path: file.node.path, kind: 'skipped', message: 'no package records found (empty or not an apk database)' });
    const resolve = filesystemResolver(ctx.index, file.node);
    const os = await osReleaseOf(ctx.index, file.node);
    const namespace = os?.id && /^[a-z0-9._-]+$/.test(os.id) ? os.id : 'alpine';
    return records.map((r) => packageCandidate(r, file.node, { purlType: 'apk', namespace, method: 'apk-installed' }, resolve));
  },
};
