// RPM databases in the SQLite format (rpm >= 4.16: Fedora 33+, RHEL 9, openSUSE): the Packages table holds
// one header blob per installed package. The older Berkeley DB (Packages) and NDB (Packages.db) formats are
// recognised and skipped with a recorded reason.
import { createRequire } from 'node:module';
import type DatabaseType from 'better-sqlite3';
import { globsMatcher } from '../file-index.js';
import { FormatError } from '../format-error.js';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { osReleaseOf } from './os-release.identifier.js';
import { filesystemResolver, packageCandidate } from './package-candidate.js';
import { headerFiles, headerString, headerStrings, parseRpmHeader, TAG } from './rpm-header.js';

const isSqlite = globsMatcher(['**/var/lib/rpm/rpmdb.sqlite', '**/usr/lib/sysimage/rpm/rpmdb.sqlite']);
const isLegacy = globsMatcher(['**/var/lib/rpm/Packages', '**/var/lib/rpm/Packages.db', '**/usr/lib/sysimage/rpm/Packages', '**/usr/lib/sysimage/rpm/Packages.db']);

/** better-sqlite3 (35 ms to load) is loaded for the first RPM database found: most images hold none. */
let databaseClass: typeof DatabaseType | undefined;
const loadDatabase = (): typeof DatabaseType => (databaseClass ??= createRequire(import.meta.url)('better-sqlite3') as typeof DatabaseType);

export const rpmDbIdentifier: Identifier = {
  id: 'rpm-db',
  description: 'RPM database, SQLite format (method rpm-db)',
  selects: (node) => isSqlite(node.fsPath) || isLegacy(node.fsPath),
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    if (isLegacy(file.node.fsPath)) {
      ctx.note({ path: file.node.path, kind: 'skipped', message: 'RPM database in Berkeley DB or NDB format is not supported (only rpmdb.sqlite)' });
      return [];
    }
    if (!(await file.head()).subarray(0, 16).equals(Buffer.from('SQLite format 3\0', 'latin1'))) {
      ctx.note({ path: file.node.path, kind: 'skipped', message: 'not an SQLite database' });
      return [];
    }
    let rows: Array<{ blob: Buffer }>;
    const Database = loadDatabase();
    const db = new Database(ctx.index.absolutePath(file.node), { readonly: true, fileMustExist: true });
    try {
      rows = db.prepare('SELECT blob FROM Packages').all() as Array<{ blob: Buffer }>;
    } catch (error) {
      ctx.note({ path: file.node.path, kind: 'skipped', message: `no readable Packages table: ${(error as Error).message}` });
      return [];
    } finally {
      db.close();
    }
    const resolve = filesystemResolver(ctx.index, file.node);
    const os = await osReleaseOf(ctx.index, file.node);
    const namespace = os?.id && /^[a-z0-9._-]+$/.test(os.id) ? os.id : undefined;
    const out: Candidate[] = [];
    let bad = 0;
    for (const { blob } of rows) {
      try {
        const h = parseRpmHeader(Buffer.from(blob));
        const name = headerString(h, TAG.NAME);
        const version = headerString(h, TAG.VERSION);
        if (!name || !version || name === 'gpg-pubkey') continue;
        const release = headerString(h, TAG.RELEASE);
        const epoch = h.get(TAG.EPOCH);
        const full = `${Array.isArray(epoch) && typeof epoch[0] === 'number' && epoch[0] > 0 ? `${epoch[0]}:` : ''}${version}${release ? `-${release}` : ''}`;
        const arch = headerString(h, TAG.ARCH);
        const candidate = packageCandidate(
          {
            name,
            version: full,
            architecture: arch,
            license: headerString(h, TAG.LICENSE),
            supplier: headerString(h, TAG.VENDOR),
            depends: headerStrings(h, TAG.REQUIRENAME).filter((r) => !r.startsWith('rpmlib(') && !r.startsWith('/')),
            provides: headerStrings(h, TAG.PROVIDENAME),
            files: headerFiles(h),
            match: `Name: ${name}; Version: ${version}${release ? `; Release: ${release}` : ''}${arch ? `; Arch: ${arch}` : ''}`,
          },
          file.node,
          { purlType: 'rpm', namespace, method: 'rpm-db' },
          resolve,
        );
        out.push(candidate);
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        bad++;
      }
    }
    if (bad) ctx.note({ path: file.node.path, kind: 'warning', message: `${bad} malformed RPM header(s) skipped` });
    return out;
  },
};
