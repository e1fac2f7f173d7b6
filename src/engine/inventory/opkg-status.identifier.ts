// opkg/ipkg databases (OpenWrt, LEDE, many vendor SDKs): the status file and per-package *.control files,
// with installed file lists from info/<package>.list.
import { posix } from 'node:path';
import { globsMatcher } from '../file-index.js';
import { dependencyNames, parseStanzas, type Stanza } from './control-file.js';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { filesystemResolver, packageCandidate, type PackageRecord } from './package-candidate.js';

const STATUS = ['**/usr/lib/opkg/status', '**/var/lib/opkg/status', '**/usr/lib/ipkg/status', '**/var/lib/ipkg/status', '**/var/opkg-lists/status'];
const CONTROL = ['**/usr/lib/opkg/info/*.control', '**/var/lib/opkg/info/*.control', '**/usr/lib/ipkg/info/*.control'];
const isStatus = globsMatcher(STATUS);
const isControl = globsMatcher(CONTROL);

export function opkgRecord(stanza: Stanza, files: string[]): PackageRecord | undefined {
  const name = stanza.get('package');
  const version = stanza.get('version');
  if (!name || !version) return undefined;
  const match = ['package', 'version', 'architecture'].filter((f) => stanza.has(f)).map((f) => `${f[0].toUpperCase()}${f.slice(1)}: ${stanza.get(f)}`).join('; ');
  return {
    name,
    version,
    architecture: stanza.get('architecture'),
    license: stanza.get('license'),
    supplier: stanza.get('maintainer'),
    depends: dependencyNames(stanza.get('depends')),
    provides: dependencyNames(stanza.get('provides')),
    files,
    match,
  };
}

async function listedFiles(ctx: IdentifierContext, view: FileView, infoDir: string, pkg: string): Promise<string[]> {
  const resolve = filesystemResolver(ctx.index, view.node);
  const list = resolve(posix.join(infoDir, `${pkg}.list`));
  if (!list || list.size > 4 * 1024 * 1024) return [];
  const text = (await ctx.index.read(list)).toString('utf8');
  return text.split('\n').map((l) => l.split('\t')[0].trim()).filter((l) => l.startsWith('/'));
}

export const opkgStatusIdentifier: Identifier = {
  id: 'opkg-status',
  description: 'opkg/ipkg status and *.control records (method opkg-status, opkg-control)',
  selects: (node) => isStatus(node.fsPath) || isControl(node.fsPath),
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    const control = isControl(file.node.fsPath);
    const stanzas = parseStanzas(await file.text());
    const infoDir = control ? posix.dirname(file.node.fsPath) : posix.join(posix.dirname(file.node.fsPath), 'info');
    const resolve = filesystemResolver(ctx.index, file.node);
    const out: Candidate[] = [];
    let skipped = 0;
    for (const stanza of stanzas) {
      const status = stanza.get('status');
      // Only installed packages; 'deinstall' / 'not-installed' / 'config-files' records are history.
      if (status && !/\binstalled\b/.test(status.replace(/not-installed/g, ''))) continue;
      const name = stanza.get('package');
      const record = name ? opkgRecord(stanza, await listedFiles(ctx, file, infoDir, name)) : undefined;
      if (!record) {
        skipped++;
        continue;
      }
      out.push(packageCandidate(record, file.node, { purlType: 'openwrt', method: control ? 'opkg-control' : 'opkg-status' }, resolve));
    }
    if (skipped) ctx.note({ path: file.node.path, kind: 'warning', message: `${skipped} record(s) without Package or Version skipped` });
    if (stanzas.length === 0) ctx.note({ path: file.node.path, kind: 'skipped', message: 'no package records found (empty or not an opkg database)' });
    return out;
  },
};
