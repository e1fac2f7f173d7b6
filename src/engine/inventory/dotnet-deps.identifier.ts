// .NET applications: '<app>.deps.json' (written by the SDK next to the application) lists under 'libraries'
// every 'Name/Version' with its type: 'package' entries are NuGet packages (purl pkg:nuget), 'project' the
// application's own projects (reported as applications without a registry).
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { languageCandidate } from './language-package.js';

export const dotnetDepsIdentifier: Identifier = {
  id: 'dotnet-deps',
  description: '.NET *.deps.json dependency manifests (method dotnet-deps-json)',
  selects: (node) => node.size < 16 * 1024 * 1024 && node.fsPath.endsWith('.deps.json'),
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    let json: { libraries?: Record<string, { type?: unknown }> };
    try {
      json = JSON.parse(await file.text()) as typeof json;
    } catch {
      ctx.note({ path: file.node.path, kind: 'skipped', message: 'not valid JSON' });
      return [];
    }
    const out: Candidate[] = [];
    for (const [key, lib] of Object.entries(json?.libraries ?? {})) {
      const slash = key.lastIndexOf('/');
      if (slash <= 0 || lib?.type !== 'package') continue;
      const c = languageCandidate({ purlType: 'nuget', name: key.slice(0, slash), version: key.slice(slash + 1), method: 'dotnet-deps-json', match: `"${key}": {"type": "package"}` }, file.node);
      if (c) out.push(c);
    }
    return out;
  },
};
