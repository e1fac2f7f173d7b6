// PHP packages installed by Composer: 'vendor/composer/installed.json' (Composer 1: an array; Composer 2:
// {"packages": [...]}) lists every installed package with name 'vendor/package' and version. Purl pkg:composer.
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { languageCandidate } from './language-package.js';

interface ComposerPackage {
  name?: unknown;
  version?: unknown;
  license?: unknown;
  require?: unknown;
}

export const phpComposerIdentifier: Identifier = {
  id: 'php-composer',
  description: 'PHP Composer installed.json (method composer-installed)',
  selects: (node) => node.size < 16 * 1024 * 1024 && /(?:^|\/)composer\/installed\.json$/.test(node.fsPath),
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    let json: unknown;
    try {
      json = JSON.parse(await file.text());
    } catch {
      ctx.note({ path: file.node.path, kind: 'skipped', message: 'not valid JSON' });
      return [];
    }
    const list = (Array.isArray(json) ? json : (json as { packages?: unknown })?.packages) as ComposerPackage[] | undefined;
    if (!Array.isArray(list)) return [];
    const out: Candidate[] = [];
    for (const p of list) {
      if (typeof p?.name !== 'string' || !p.name.includes('/')) continue;
      const [namespace, name] = p.name.split('/', 2);
      // Composer writes 'v1.2.3' for tags; the purl and matching use the bare number.
      const version = typeof p.version === 'string' ? p.version.replace(/^v(?=\d)/, '') : undefined;
      const licenses = Array.isArray(p.license) ? p.license.filter((l): l is string => typeof l === 'string') : undefined;
      const requires = p.require && typeof p.require === 'object' ? Object.keys(p.require).filter((r) => r.includes('/')).map((r) => `composer:${r}`.toLowerCase()) : [];
      const c = languageCandidate({ purlType: 'composer', namespace, name, version, licenses, method: 'composer-installed', match: `${p.name} ${String(p.version ?? '')}`, dependsOn: requires }, file.node);
      if (c) out.push(c);
    }
    return out;
  },
};
