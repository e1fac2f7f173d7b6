// Lua rocks installed by LuaRocks: each one keeps its rockspec in the tree's
// 'lib/luarocks/rocks-<lua version>/<name>/<version>/<name>-<version>.rockspec' ('package = "name"',
// 'version = "1.2.3-1"': upstream version and rockspec revision, as the purl keeps it; 'license' in its
// description). Read as text, never run: a rockspec is Lua code. Purl pkg:luarocks.
import { posix } from 'node:path';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { languageCandidate } from './language-package.js';

const FIELD = (name: string) => new RegExp(`^\\s*${name}\\s*=\\s*(["'])([^"'\\n]{1,100})\\1`, 'm');
const LICENSE = /\blicense\s*=\s*(["'])([^"'\n]{1,100})\1/;

export const luaRocksIdentifier: Identifier = {
  id: 'lua-rocks',
  description: 'Lua rocks installed by LuaRocks: rocks-*/<name>/<version>/*.rockspec (method luarocks-rockspec)',
  selects: (node) => node.size < 256 * 1024 && node.fsPath.endsWith('.rockspec') && /\/rocks-[\d.]+\/[^/]+\/[^/]+\/[^/]+$/.test(node.fsPath),
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    const text = await file.text();
    const name = FIELD('package').exec(text)?.[2];
    const version = FIELD('version').exec(text)?.[2];
    // the tree's folders name the rock (lower-cased: rock names ignore case) and version too: a rockspec that
    // disagrees with them is not this install's
    const [folderName, folderVersion] = posix.dirname(file.node.fsPath).split('/').slice(-2);
    if (!name || !version || name.toLowerCase() !== folderName || version !== folderVersion) {
      ctx.note({ path: file.node.path, kind: 'skipped', message: 'no package/version matching its rocks tree folders' });
      return [];
    }
    const license = LICENSE.exec(text)?.[2];
    const c = languageCandidate({ purlType: 'luarocks', name: folderName, version, licenses: license ? [license] : [], method: 'luarocks-rockspec', match: `package = "${name}", version = "${version}"` }, file.node);
    return c ? [c] : [];
  },
};
