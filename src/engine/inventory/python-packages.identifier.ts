// Python packages installed by pip or a distribution: '<name>-<version>.dist-info/METADATA' (wheels),
// '<name>-<version>.egg-info/PKG-INFO' and the single-file '<name>-<version>.egg-info' (setuptools, Debian's
// python3-* packages). Purl pkg:pypi with the PEP 503 normalised name.
import { posix } from 'node:path';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { headerFields, languageCandidate } from './language-package.js';

function isRecord(fsPath: string): boolean {
  const base = posix.basename(fsPath);
  const dir = posix.basename(posix.dirname(fsPath));
  return (base === 'METADATA' && dir.endsWith('.dist-info')) || (base === 'PKG-INFO' && dir.endsWith('.egg-info')) || base.endsWith('.egg-info');
}

/** PEP 503: lower case, runs of '-', '_' and '.' become '-'. */
export const pypiName = (name: string): string => name.toLowerCase().replace(/[-_.]+/g, '-');

export const pythonPackagesIdentifier: Identifier = {
  id: 'python-packages',
  description: 'Python dist-info METADATA and egg-info PKG-INFO records (methods python-dist-info, python-egg-info)',
  selects: (node) => node.size < 4 * 1024 * 1024 && isRecord(node.fsPath),
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    const fields = headerFields(await file.text());
    const name = fields.get('name')?.[0];
    const version = fields.get('version')?.[0];
    if (!name || !version) {
      ctx.note({ path: file.node.path, kind: 'skipped', message: 'Python package metadata without Name and Version' });
      return [];
    }
    const license = fields.get('license-expression')?.[0] ?? fields.get('license')?.[0];
    const method = file.node.fsPath.includes('.dist-info/') ? 'python-dist-info' : 'python-egg-info';
    const requires = (fields.get('requires-dist') ?? []).filter((r) => !/;\s*extra\s*==/.test(r)).map((r) => `pypi:${pypiName(/^[A-Za-z0-9][\w.-]*/.exec(r)?.[0] ?? r)}`);
    const c = languageCandidate(
      {
        purlType: 'pypi',
        name: pypiName(name),
        version,
        licenses: license && license.length < 80 && license !== 'UNKNOWN' ? [license] : undefined,
        method,
        match: `Name: ${name}; Version: ${version}`,
        dependsOn: requires,
      },
      file.node,
    );
    return c ? [c] : [];
  },
};
