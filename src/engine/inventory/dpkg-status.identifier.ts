// dpkg databases (Debian, Ubuntu, Raspberry Pi OS, many ARM SDK root filesystems): /var/lib/dpkg/status and the
// distroless status.d/ records, with installed file lists from info/<package>[:arch].list.
import { posix } from 'node:path';
import { globsMatcher } from '../file-index.js';
import { dependencyNames, parseStanzas } from './control-file.js';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { osReleaseOf } from './os-release.identifier.js';
import { filesystemResolver, packageCandidate } from './package-candidate.js';

const isStatus = globsMatcher(['**/var/lib/dpkg/status', '**/var/lib/dpkg/status.d/*']);

export const dpkgStatusIdentifier: Identifier = {
  id: 'dpkg-status',
  description: 'dpkg status records (method dpkg-status)',
  selects: (node) => isStatus(node.fsPath) && !node.fsPath.endsWith('.md5sums'),
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    const stanzas = parseStanzas(await file.text());
    if (stanzas.length === 0) {
      ctx.note({ path: file.node.path, kind: 'skipped', message: 'no package records found (empty or not a dpkg database)' });
      return [];
    }
    const resolve = filesystemResolver(ctx.index, file.node);
    const os = await osReleaseOf(ctx.index, file.node);
    const namespace = os?.id && /^[a-z0-9._-]+$/.test(os.id) ? os.id : 'debian';
    const infoDir = file.node.fsPath.includes('/status.d/') ? posix.join(posix.dirname(file.node.fsPath), '..', 'info') : posix.join(posix.dirname(file.node.fsPath), 'info');
    const out: Candidate[] = [];
    for (const stanza of stanzas) {
      const status = stanza.get('status');
      if (status && !/ installed$/.test(status)) continue;
      const name = stanza.get('package');
      const version = stanza.get('version');
      if (!name || !version) continue;
      const arch = stanza.get('architecture');
      let files: string[] = [];
      for (const listName of [`${name}:${arch}.list`, `${name}.list`]) {
        const list = resolve(posix.join(infoDir, listName));
        if (list && list.size < 4 * 1024 * 1024) {
          files = (await ctx.index.read(list)).toString('utf8').split('\n').filter((l) => l.startsWith('/'));
          break;
        }
      }
      const source = stanza.get('source')?.split(' ')[0];
      const record = {
        name,
        version,
        architecture: arch,
        supplier: stanza.get('maintainer'),
        depends: [...dependencyNames(stanza.get('depends')), ...dependencyNames(stanza.get('pre-depends'))],
        provides: dependencyNames(stanza.get('provides')),
        files,
        match: `Package: ${name}; Version: ${version}${source ? `; Source: ${source}` : ''}${arch ? `; Architecture: ${arch}` : ''}`,
      };
      out.push(packageCandidate(record, file.node, { purlType: 'deb', namespace, method: 'dpkg-status' }, resolve));
    }
    return out;
  },
};
