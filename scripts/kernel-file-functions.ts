// Generates tables/kernel-file-functions.json.gz (names) and tables/kernel-function-guards.json.gz (guards) from the C files of a kernel source tree, for the kernel CVE
// triage (src/engine/vulns/kernel-triage.ts):
//   names: for each source file, up to two function names that no other file of the tree defines (non-static
//          first): when a symbol table (System.map, kallsyms, .symtab) holds one, the file is built; this maps a
//          record's programFiles to the kernel even without a configuration or where the kbuild table cannot;
//   guards: for each source file, the functions it defines inside preprocessor conditionals on CONFIG_ options,
//          with the condition (the enclosing #if/#ifdef/#ifndef/#elif/#else, CONFIG_ parts only, joined by &&):
//          a built file whose vulnerable routine sits under an option that is off stays unknown.
// Run it on the same Debian linux-source package as scripts/kernel-file-options.ts (the table, not the tree,
// is committed):
//   apt-get download linux-source-6.1 && dpkg-deb -x linux-source-6.1_*.deb src
//   (cd src/usr/src && tar -xJf linux-source-6.1.tar.xz --wildcards '*/Makefile' '*/Kbuild' '*.c')
//   npx tsx scripts/kernel-file-functions.ts src/usr/src/linux-source-6.1 6.1.192-2
// C is read as far as this needs: comments and strings removed, top-level `name(...) {` definitions (not
// all-capital macro invocations), `#if 0` blocks skipped.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';

const [root, version] = process.argv.slice(2);
if (!root || !version) throw new Error('usage: kernel-file-functions.ts <kernel source tree> <package version>');

interface Definition { name: string; isStatic: boolean; guard?: string }

/** One preprocessor conditional: the conditions of its earlier branches and of the current one ('' = no CONFIG_ part). */
interface Frame { earlier: string[]; current: string; dead: boolean }

const configPart = (cond: string) => (/CONFIG_/.test(cond) ? cond.replace(/\s+/g, ' ').trim() : '');

function guardOf(stack: Frame[]): string | undefined {
  const parts: string[] = [];
  for (const f of stack) {
    for (const e of f.earlier) if (e) parts.push(`!(${e})`);
    if (f.current) parts.push(`(${f.current})`);
  }
  return parts.length > 0 ? parts.join(' && ') : undefined;
}

/** Comments and string/char literals blanked (newlines kept), so braces and parentheses can be counted. */
function strip(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g, (m) => (m.startsWith('/') ? m.replace(/[^\n]/g, ' ') : '""'));
}

function definitions(text: string): Definition[] {
  const out: Definition[] = [];
  const stack: Frame[] = [];
  let depth = 0;
  let pending = '';
  const lines = strip(text).replace(/\\\n/g, ' ').split('\n');
  for (const line of lines) {
    const pp = /^\s*#\s*(\w+)\s*(.*)$/.exec(line);
    if (pp) {
      const [, directive, rest] = pp as unknown as [string, string, string];
      if (directive === 'if' || directive === 'ifdef' || directive === 'ifndef') {
        const cond = directive === 'ifdef' ? `defined(${rest.trim()})` : directive === 'ifndef' ? `!defined(${rest.trim()})` : rest;
        stack.push({ earlier: [], current: configPart(cond), dead: rest.trim() === '0' });
      } else if (directive === 'elif' && stack.length > 0) {
        const f = stack[stack.length - 1]!;
        f.earlier.push(f.current);
        f.current = configPart(rest);
        f.dead = rest.trim() === '0';
      } else if (directive === 'else' && stack.length > 0) {
        const f = stack[stack.length - 1]!;
        f.earlier.push(f.current);
        f.current = '';
        f.dead = false;
      } else if (directive === 'endif') stack.pop();
      continue;
    }
    if (stack.some((f) => f.dead)) continue;
    for (const ch of line) {
      if (ch === '{') {
        if (depth === 0) {
          const m = /(?:^|[\s*])([A-Za-z_]\w*)\s*\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)\s*(?:__\w+(?:\s*\([^()]*\))?\s*)*$/.exec(pending);
          const name = m?.[1];
          if (name && !/^[A-Z0-9_]+$/.test(name) && !/\b(struct|union|enum)\s*$/.test(pending.slice(0, m!.index + 1)) && !/=/.test(pending.slice(0, m!.index + 1))
            && !['if', 'for', 'while', 'switch', 'return', 'sizeof'].includes(name)) {
            out.push({ name, isStatic: /\bstatic\b/.test(pending), ...(guardOf(stack) ? { guard: guardOf(stack)! } : {}) });
          }
        }
        depth++;
        pending = '';
      } else if (ch === '}') {
        depth = Math.max(0, depth - 1);
        pending = '';
      } else if (ch === ';') {
        if (depth === 0) pending = '';
      } else if (depth === 0) pending += ch;
    }
    if (depth === 0) pending += ' ';
  }
  return out;
}

function* cFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!['tools', 'scripts', 'Documentation', 'samples', 'usr'].includes(relative(root!, path))) yield* cFiles(path);
    } else if (entry.name.endsWith('.c')) yield path;
  }
}

const byFile = new Map<string, Definition[]>();
const definers = new Map<string, number>();
for (const path of cFiles(root)) {
  const defs = definitions(readFileSync(path, 'latin1'));
  byFile.set(relative(root, path), defs);
  for (const name of new Set(defs.map((d) => d.name))) definers.set(name, (definers.get(name) ?? 0) + 1);
}

const names: Record<string, string[]> = {};
const guards: Record<string, Record<string, string>> = {};
for (const [file, defs] of [...byFile].sort(([a], [b]) => (a < b ? -1 : 1))) {
  // unguarded, defined once in the tree and in this file: non-static ones first (never inlined across files)
  const unique = defs.filter((d) => !d.guard && definers.get(d.name) === 1);
  const picked = [...new Set([...unique.filter((d) => !d.isStatic), ...unique.filter((d) => d.isStatic)].map((d) => d.name))].slice(0, 2);
  if (picked.length > 0) names[file] = picked;
  const guarded = defs.filter((d) => d.guard);
  if (guarded.length > 0) guards[file] = Object.fromEntries(guarded.map((d) => [d.name, d.guard!]));
}
// two files: the names are read by every triage with symbols, the guards only for records that name routines
const tables = join(import.meta.dirname, '..', 'tables');
const source = `Debian linux-source-6.1 ${version}`;
writeFileSync(join(tables, 'kernel-file-functions.json.gz'), gzipSync(JSON.stringify({ source, names }), { level: 9 }));
writeFileSync(join(tables, 'kernel-function-guards.json.gz'), gzipSync(JSON.stringify({ source, guards }), { level: 9 }));
console.log(`${byFile.size} files, ${Object.keys(names).length} with unique names, ${Object.values(guards).reduce((n, g) => n + Object.keys(g).length, 0)} guarded functions in ${Object.keys(guards).length} files → ${tables}`);
