// Erlang/OTP applications: every 'ebin/<app>.app' resource file is an Erlang term
// '{application, <name>, [{description, "…"}, {vsn, "1.2.3"}, …]}.' naming the application and its version
// (OTP's own applications such as kernel, stdlib, ssl, and those of rebar3/hex releases). Purl pkg:hex.
import { posix } from 'node:path';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { languageCandidate } from './language-package.js';

const APP = /\{\s*application\s*,\s*'?([a-z][\w@]*)'?\s*,\s*\[([\s\S]*)\]\s*\}\s*\./;
const VSN = /\{\s*vsn\s*,\s*"([^"]{1,64})"\s*\}/;

export const erlangAppsIdentifier: Identifier = {
  id: 'erlang-apps',
  description: 'Erlang/OTP application resource files ebin/*.app (method erlang-app-resource)',
  selects: (node) => node.size < 1024 * 1024 && node.fsPath.endsWith('.app') && posix.basename(posix.dirname(node.fsPath)) === 'ebin',
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    // Comments ('%' to end of line) may precede the term.
    const text = (await file.text()).replace(/%[^\n]*/g, '');
    const m = APP.exec(text);
    const vsn = m && VSN.exec(m[2]);
    if (!m || !vsn) {
      ctx.note({ path: file.node.path, kind: 'skipped', message: 'no {application, Name, [... {vsn, ...}]} term' });
      return [];
    }
    const c = languageCandidate({ purlType: 'hex', name: m[1], version: vsn[1], method: 'erlang-app-resource', match: `{application, ${m[1]}, [... {vsn, "${vsn[1]}"} ...]}` }, file.node);
    return c ? [c] : [];
  },
};
