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
    patterns: [banner('Copyright (C) 1994-', /Lua (5\.\d\.\d+)  Copyright \(C\) 1994-\d{4} Lua\.org/, 0.95)],
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
    patterns: [banner('This is perl ', /This is perl 5, version \d+, subversion \d+ \(v(5\.\d+\.\d+)\)/, 0.95)],
  },
  {
    id: 'nodejs',
    name: 'node',
    type: 'application',
    cpe: { vendor: 'nodejs', product: 'node.js' },
    purl: { name: 'node' },
    patterns: [banner('nodejs.org/download/release/v', /nodejs\.org\/download\/release\/v(\d+\.\d+\.\d+)\//, 0.95)],
  },
];
