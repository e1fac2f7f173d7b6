// Perl modules installed from CPAN: ExtUtils::MakeMaker and Module::Build append one entry per installed
// distribution to 'perllocal.pod' ('=head2 <date>: C<Module> L<Foo::Bar|Foo::Bar>' … 'C<VERSION: 1.23>'), and a
// build or cpanm's '.meta/<dist>/' keeps the CPAN::Meta file ('META.json', 'MYMETA.json': "name" : "Foo-Bar",
// "version" : "1.23"). Debian's packaged modules carry neither (dpkg lists them). Named as distributions
// ('Foo::Bar' → 'Foo-Bar'), so both records of one install are one component. Purl pkg:cpan.
import { posix } from 'node:path';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { languageCandidate } from './language-package.js';

const ENTRY = /^=head2 .*?: C<Module> L<([\w:]+)(?:\|[\w:]+)?>([\s\S]*?)(?=^=head2 |(?![\s\S]))/gm;
const VERSION = /C<VERSION: ([^>\s]+)>/;
const META_FILES = new Set(['META.json', 'MYMETA.json']);

const distName = (module: string) => module.replace(/::/g, '-');

function fromPerllocal(text: string, file: FileView): Candidate[] {
  const out: Candidate[] = [];
  for (const [, module, body] of text.matchAll(ENTRY)) {
    const version = VERSION.exec(body!)?.[1];
    const c = languageCandidate({ purlType: 'cpan', name: distName(module!), version, method: 'perl-perllocal', match: `C<Module> L<${module}> C<VERSION: ${version ?? '?'}>` }, file.node);
    if (c) out.push(c);
  }
  return out;
}

function fromMeta(text: string, file: FileView, ctx: IdentifierContext): Candidate[] {
  let meta: { name?: unknown; version?: unknown; license?: unknown; 'meta-spec'?: unknown };
  try {
    meta = JSON.parse(text) as typeof meta;
  } catch {
    ctx.note({ path: file.node.path, kind: 'skipped', message: 'not JSON' });
    return [];
  }
  // CPAN::Meta files only: other META.json files (a web app's, say) have no meta-spec
  if (typeof meta['meta-spec'] !== 'object' || typeof meta.name !== 'string' || (typeof meta.version !== 'string' && typeof meta.version !== 'number')) return [];
  const licenses = Array.isArray(meta.license) ? meta.license.filter((l): l is string => typeof l === 'string' && l !== 'unknown') : [];
  const c = languageCandidate({ purlType: 'cpan', name: meta.name, version: String(meta.version), licenses, method: 'perl-cpan-meta', match: `"name" : "${meta.name}", "version" : "${meta.version}"` }, file.node);
  return c ? [c] : [];
}

export const perlModulesIdentifier: Identifier = {
  id: 'perl-modules',
  description: 'CPAN distributions from perllocal.pod and CPAN::Meta files META.json/MYMETA.json (methods perl-perllocal, perl-cpan-meta)',
  selects: (node) => node.size < 4 * 1024 * 1024 && (posix.basename(node.fsPath) === 'perllocal.pod' || META_FILES.has(posix.basename(node.fsPath))),
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    const text = await file.text();
    return posix.basename(file.node.fsPath) === 'perllocal.pod' ? fromPerllocal(text, file) : fromMeta(text, file, ctx);
  },
};
