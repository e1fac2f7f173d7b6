// Language runtimes and interpreters.
import type { VersionSignature } from '../signature.js';
import { banner, standalone } from './helpers.js';

export const languageSignatures: VersionSignature[] = [
  {
    id: 'lua',
    name: 'lua',
    type: 'application',
    cpe: { vendor: 'lua', product: 'lua' },
    purl: { name: 'lua' },
    // LUA_COPYRIGHT: 'Lua 5.2.3  Copyright (C) 1994-2013 Lua.org, PUC-Rio' (also inside '$LuaVersion: ... $').
    // Lua 5.1 keeps one space: '$Lua: Lua 5.1.5 Copyright (C) 1994-2012 Lua.org, PUC-Rio $'.
    patterns: [banner('Copyright (C) 1994-', /Lua (5\.\d\.\d+)  ?Copyright \(C\) 1994-\d{4} Lua\.org/, 0.95)],
  },
  {
    id: 'php',
    name: 'php',
    type: 'application',
    cpe: { vendor: 'php', product: 'php' },
    purl: { name: 'php' },
    patterns: [banner('X-Powered-By: PHP/', /X-Powered-By: PHP\/(\d+\.\d+\.\d+)\0/, 0.95)],
  },
  {
    id: 'python',
    name: 'python',
    type: 'application',
    cpe: { vendor: 'python', product: 'python' },
    purl: { name: 'python' },
    files: ['python*', 'libpython*.so*', 'python*.dll'],
    patterns: [],
    standalone: [standalone('Py_Initialize', /^[23]\.\d+\.\d+$/)],
  },
  {
    id: 'perl',
    name: 'perl',
    type: 'application',
    cpe: { vendor: 'perl', product: 'perl' },
    purl: { name: 'perl' },
    // perl -v: 'This is perl 5, version 30, subversion 0 (v5.30.0)'
    // The interpreter (perl, libperl) keeps its own 'v5.36.0' after PERL_INTERNAL_RAND_SEED. XS modules carry the
    // version of the perl they were built for next to their .xs name: that is build evidence, not matched here.
    patterns: [
      banner('This is perl ', /This is perl 5, version \d+, subversion \d+ \(v(5\.\d+\.\d+)\)/, 0.95),
      banner('PERL_INTERNAL_RAND_SEED', /\0PERL_INTERNAL_RAND_SEED\0v(5\.\d+\.\d+)\0/, 0.9),
    ],
  },
  {
    id: 'nodejs',
    name: 'node',
    type: 'application',
    cpe: { vendor: 'nodejs', product: 'node.js' },
    purl: { name: 'node' },
    patterns: [banner('nodejs.org/download/release/v', /nodejs\.org\/download\/release\/v(\d+\.\d+\.\d+)\//, 0.95)],
  },
  {
    id: 'ruby',
    name: 'ruby',
    type: 'application',
    cpe: { vendor: 'ruby-lang', product: 'ruby' },
    purl: { name: 'ruby' },
    // RUBY_DESCRIPTION in libruby: 'ruby 3.1.2p20 (2022-04-12 revision 4491bb740a) +YJIT [x86_64-linux-gnu]'.
    patterns: [banner('ruby ', /\0ruby (\d+\.\d+\.\d+)(?:p\d+)? \(\d{4}-\d{2}-\d{2} revision [0-9a-f]{10,40}\)/, 0.95)],
  },
];
