// Generates tables/edk2-release-markers.json.gz: strings of the tianocore/edk2 source that first appear at one
// stable release (and/or disappear after one), to infer the EDK II release of a UEFI image that carries no release
// string and no build paths (Debian's RELEASE builds of OVMF and AAVMF).
//   Strings: for every tag edk2-stableYYYYMM from 201905 on (no -rc or .01 tags), the C literals ("..." and L"...",
//   adjacent ones joined, comments skipped) of its *.c/*.h files and the en-US HII strings of its *.uni files
//   (unescaped as BaseTools' UniClassObject does: \n is CR LF), plus each line of multi-line ones; not BaseTools,
//   EmulatorPkg, unit tests, Conf, openssl/mbedtls, nor files under another license than EDK II's (third-party).
//   Markers: strings present in one contiguous run of tags [since, until] that is not the whole range, that no
//   string outside the run contains, printable, with a format specifier or four words, not a name in a data table;
//   at most CAP per `since` (and per `until` for those that disappear), preferring strings that survive a RELEASE
//   build (not only in DEBUG/ASSERT statements or DEBUG_CODE blocks; the others carry "debug": true), then the
//   packages common firmware is built from, then longer ones.
// The consumer searches the decompressed modules of an image for each text (ASCII, or UTF-16LE when `utf16`):
// the second-newest `since` found bounds the release from below, the oldest `until` found from above.
// Run it on a clone (a bare mirror is enough) of https://github.com/tianocore/edk2 (the table, not the clone, is
// committed; the output depends only on the tags; a few seconds):
//   git clone --bare https://github.com/tianocore/edk2 edk2.git
//   npx tsx scripts/edk2-release-markers.ts edk2.git
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const [gitDir] = process.argv.slice(2);
if (!gitDir) throw new Error('usage: edk2-release-markers.ts <edk2 git dir>');

const FIRST_RELEASE = '201905';
const CAP = 150;
const MIN_BYTES = 14;
const MIN_LETTERS = 6;
const MIN_WORDS = 4; // without a format specifier
const MAX_BYTES = 200; // longer strings (help pages) are kept for presence but not offered as markers (their lines are)
const COMMON_PACKAGES = new Set(['MdeModulePkg', 'MdePkg', 'ShellPkg', 'NetworkPkg', 'OvmfPkg', 'SecurityPkg', 'UefiCpuPkg', 'CryptoPkg',
  'ArmPkg', 'ArmVirtPkg', 'ArmPlatformPkg', 'FatPkg', 'PcAtChipsetPkg', 'RedfishPkg', 'DynamicTablesPkg', 'SourceLevelDebugPkg',
  'StandaloneMmPkg', 'IntelFsp2Pkg']);

const git = (...args: string[]) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });

/**
 * One literal of a file: its text after unescaping, whether it is stored as UTF-16, whether only debug code uses it,
 * whether it is an element of an initializer list (a table of names: vendors, types, classes).
 */
interface Literal { text: string; utf16: boolean; debug: boolean; table: boolean }

interface TreeFile { path: string; oid: string }

// ---- tags and trees ----

function stableTags(): { tag: string; release: string }[] {
  return git('tag', '--list', 'edk2-stable*').split('\n')
    .map((tag) => /^edk2-stable(\d{6})$/.exec(tag.trim()))
    .filter((m): m is RegExpExecArray => m !== null && m[1]! >= FIRST_RELEASE)
    .map((m) => ({ tag: m[0], release: m[1]! }))
    .sort((a, b) => (a.release < b.release ? -1 : 1));
}

/** Every path of a tag's tree with its object type and id. */
function treeEntries(tag: string): { type: string; oid: string; path: string }[] {
  return git('ls-tree', '-r', '-z', tag).split('\0').filter(Boolean).map((line) => {
    const [meta, path] = line.split('\t') as [string, string];
    const [, type, oid] = meta.split(' ') as [string, string, string];
    return { type, oid, path };
  });
}

function wanted(path: string): boolean {
  if (!/\.(c|h|uni)$/i.test(path)) return false;
  if (/^(BaseTools|EmulatorPkg|UnitTestFrameworkPkg|Conf)\//.test(path)) return false;
  return !path.split('/').some((p) => p.includes('Test') || /^(openssl|mbedtls)/i.test(p));
}

/**
 * Is this one of EDK II's own files: is its license (SPDX-License-Identifier) BSD-2-Clause-Patent alone? Third-party
 * copies are not (LZMA SDK, libfdt, oniguruma and brotli before they became submodules, Xen headers, jansson's
 * load.c under "BSD-2-Clause-Patent AND MIT"...): their strings come and go with the copies but stay in the binaries
 * when a copy turns into a submodule, and other software has them too, so they cannot mark a release.
 */
const ownFile = (text: string) =>
  /SPDX-License-Identifier:[ \t]*([^\r\n]*)/.exec(text)?.[1]!.replace(/\*\/.*$/, '').trim() === 'BSD-2-Clause-Patent';

// ---- reading blobs once ----

/** Streams `git cat-file --batch` for the ids, calling onBlob with each content (missing objects are reported). */
function readBlobs(oids: string[], onBlob: (oid: string, data: Buffer) => void): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['--git-dir', gitDir, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const missing: string[] = [];
    let buffer: Buffer = Buffer.alloc(0);
    child.stdout.on('data', (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      for (;;) {
        const eol = buffer.indexOf(10);
        if (eol < 0) return;
        const [oid, type, size] = buffer.subarray(0, eol).toString('latin1').split(' ') as [string, string, string?];
        if (type === 'missing') {
          missing.push(oid);
          buffer = buffer.subarray(eol + 1);
          continue;
        }
        const end = eol + 1 + Number(size);
        if (buffer.length < end + 1) return;
        onBlob(oid, buffer.subarray(eol + 1, end));
        buffer = buffer.subarray(end + 1);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(missing) : reject(new Error(`git cat-file exited with ${code}`))));
    child.stdin.end(oids.join('\n') + '\n');
  });
}

// ---- literals of C files ----

const C_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', '\\': '\\', '"': '"', "'": "'", '?': '?' };

function unescapeC(body: string): string {
  return body.replace(/\\(x[0-9A-Fa-f]{1,4}|[0-7]{1,3}|\n|[\s\S])/g, (_, e: string) => {
    if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    if (e === '\n') return ''; // line continuation
    return C_ESCAPES[e] ?? e;
  });
}

const C_TOKEN = /\/\*[\s\S]*?(?:\*\/|$)|\/\/[^\n]*|(L?)"((?:\\[\s\S]|[^"\\\n])*)"|'(?:\\.|[^'\\\n])*'|\b(DEBUG_CODE_BEGIN|DEBUG_CODE_END|\w*(?:DEBUG|ASSERT)\w*)\b|[;{}(),]|\n[ \t]*#/g;

/**
 * The string literals of a C file. A literal is `debug` when release builds drop it: it sits in a statement (text
 * since the previous `;`, `{`, `}` or directive) that names DEBUG or ASSERT, inside the parentheses of such a macro,
 * or between DEBUG_CODE_BEGIN and DEBUG_CODE_END. It is `table` when it follows `{` or `,` directly inside braces.
 */
function cLiterals(text: string): Literal[] {
  const out: Literal[] = [];
  let statementDebug = false;
  let depth = 0;
  let debugDepth = -1; // parenthesis depth at which a DEBUG/ASSERT macro's argument list started
  let debugBlock = false;
  let afterString = false; // the previous token (comments aside) is a literal, and lastEnd is where it or a comment ends
  let lastEnd = 0;
  const braces: number[] = []; // parenthesis depth at each open brace
  let previous = ''; // the previous token, comments aside
  for (const m of text.matchAll(C_TOKEN)) {
    const token = m[0];
    const adjacent = afterString && /^[\s\\]*$/.test(text.slice(lastEnd, m.index));
    lastEnd = m.index + token.length;
    if (token.startsWith('/')) continue; // comment
    afterString = m[2] !== undefined;
    const before = previous;
    previous = token;
    if (m[2] !== undefined) {
      // adjacent literals ("abc" "def") are one string in the binary
      if (adjacent) out[out.length - 1]!.text += unescapeC(m[2]);
      else {
        const table = (before === '{' || before === ',') && braces.length > 0 && braces[braces.length - 1] === depth;
        out.push({ text: unescapeC(m[2]), utf16: m[1] === 'L', debug: statementDebug || debugDepth >= 0 || debugBlock, table });
      }
    } else if (m[3] !== undefined) {
      if (m[3] === 'DEBUG_CODE_BEGIN') debugBlock = true;
      else if (m[3] === 'DEBUG_CODE_END') debugBlock = false;
      else {
        statementDebug = true;
        if (debugDepth < 0) debugDepth = depth;
      }
    } else if (token === '(') depth++;
    else if (token === ')') {
      depth = Math.max(0, depth - 1);
      if (depth <= debugDepth) debugDepth = -1;
    } else if (token === ';' || token === '{' || token === '}' || token.startsWith('\n')) {
      if (token === '{') braces.push(depth);
      else if (token === '}') braces.pop();
      statementDebug = false;
      if (token.startsWith('\n')) depth = 0;
      if (depth <= debugDepth) debugDepth = -1; // a DEBUG_x constant used outside a macro call
    }
  }
  return out;
}

// ---- strings of .uni files ----

function decodeUni(data: Buffer): string {
  if (data[0] === 0xff && data[1] === 0xfe) return data.subarray(2).toString('utf16le');
  if (data[0] === 0xfe && data[1] === 0xff) return Buffer.from(data.subarray(2)).swap16().toString('utf16le');
  if (data.length > 1 && data[1] === 0 && data[0] !== 0) return data.toString('utf16le');
  return data.toString('utf8').replace(/^\uFEFF/, '');
}

/** BaseTools' escapes of .uni strings (UniClassObject.PreProcess): \n and \r\n become CR LF, \t a space. */
function unescapeUni(body: string): string {
  return body.replace(/\\\\|\\r\\n|\\n|\\r|\\t|\\"|\\'|\t/g, (e) =>
    ({ '\\\\': '\\', '\\r\\n': '\r\n', '\\n': '\r\n', '\\r': '\r', '\\t': ' ', '\\"': '"', "\\'": "'", '\t': ' ' })[e]!);
}

/** Names of strings that describe modules and packages (UEFI Packaging metadata), never built into a binary. */
const METADATA_NAME = /^STR_(MODULE_|PROPERTIES_|PACKAGE_|g\w+TokenSpaceGuid_)/;

const UNI_TOKEN = /\/\/[^\n]*|#string\s+(\w+)|#language\s+([\w-]+)|#langdef\s+([\w-]+)|"((?:\\[\s\S]|[^"\\\n])*)"/g;

/** The en-US strings of a .uni file; continuation lines ("more text") are appended to the current string. */
function uniLiterals(text: string): Literal[] {
  const out: Literal[] = [];
  const englishDefault = /#langdef\s+en(-US)?\b/.test(text);
  let name: string | undefined;
  let language: string | undefined;
  let value: string | undefined;
  const flush = () => {
    if (name && value !== undefined && !METADATA_NAME.test(name)) out.push({ text: unescapeUni(value), utf16: true, debug: false, table: false });
    value = undefined;
  };
  for (const m of text.matchAll(UNI_TOKEN)) {
    if (m[1] !== undefined) flush(), (name = m[1]), (language = undefined);
    else if (m[2] !== undefined) flush(), (language = m[2]);
    else if (m[3] !== undefined) flush(), (name = undefined);
    else if (m[4] !== undefined && name && (language === 'en-US' || (language === undefined && englishDefault))) value = (value ?? '') + m[4];
  }
  flush();
  return out;
}

// ---- which strings can serve ----

const FORMAT_SPECS = /%[-+ #0,]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:ll|l|L|h|I64)?[a-zA-Z%]/g;
const FORMAT_SPEC = new RegExp(FORMAT_SPECS.source);

/**
 * Printable ASCII (plus tab, CR, LF), long enough, with enough letters outside format specifiers, and either a format
 * specifier or four words: a few words ("ECDHE-RSA-AES256-GCM-SHA384", "clock-frequency", " Are you sure?") are as
 * likely to come from other code (openssl, libfdt, PCI and SMBIOS name tables, any application) as from EDK II.
 */
function usable(text: string): boolean {
  if (text.length < MIN_BYTES || text.length > MAX_BYTES || !/^[\x20-\x7e\t\r\n]+$/.test(text)) return false;
  if (!FORMAT_SPEC.test(text) && (text.match(/[A-Za-z][\w'-]*/g)?.length ?? 0) < MIN_WORDS) return false;
  const specs = text.match(FORMAT_SPECS)?.join('').length ?? 0;
  const letters = text.replace(FORMAT_SPECS, '').replace(/[^A-Za-z]/g, '').length;
  return letters >= MIN_LETTERS && specs * 2 < text.length;
}

/**
 * Literals of an EDK II file long enough to be a marker or to contain one (whether they can serve is decided later),
 * and the lines of multi-line ones: a help page changes a line at a time, the new line marks the release.
 */
function literalsOf(path: string, data: Buffer): Literal[] {
  const uni = path.toLowerCase().endsWith('.uni');
  const text = uni ? decodeUni(data) : data.toString('latin1');
  if (!ownFile(text)) return [];
  const out: Literal[] = [];
  for (const lit of uni ? uniLiterals(text) : cLiterals(text)) {
    if (lit.text.length < MIN_BYTES) continue;
    out.push(lit);
    const lines = lit.text.split(/(?<=\n)/);
    if (lines.length > 1) for (const line of lines) if (line.length >= MIN_BYTES) out.push({ ...lit, text: line });
  }
  return out;
}

// ---- presence per tag ----

/** One text: the tags it occurs in (indices, ascending), and how it occurs in the first of them. */
interface Presence {
  tags: number[];
  debug: boolean; // only debug occurrences, in every tag
  table: boolean; // only initializer-list occurrences, in every tag
  first: { file: string; utf16: boolean; debug: boolean; common: boolean };
}

const packageOf = (path: string) => path.split('/')[0]!;

/** Is occurrence b a better representative than a (non-debug, then a common package; else the first in tree order)? */
const better = (a: Presence['first'], b: Presence['first']) =>
  a.debug !== b.debug ? a.debug : a.common !== b.common ? b.common : false;

/** All strings present in some tag before `index` (key 'b<index>') or after it ('a<index>'), joined by NULs. */
const outside = new Map<string, string>();

/**
 * Does a string present outside the run of `text` contain it? A binary of an older release then holds the text
 * too (as part of a longer string), so it cannot mark the release.
 */
function containedOutside(text: string, p: Presence, presence: Map<string, Presence>, last: number): boolean {
  const since = p.tags[0]!;
  const until = p.tags[p.tags.length - 1]!;
  const joined = (key: string, keep: (q: Presence) => boolean) => {
    let s = outside.get(key);
    if (s === undefined) outside.set(key, (s = [...presence].filter(([, q]) => keep(q)).map(([t]) => t).join('\0')));
    return s;
  };
  if (since > 0 && joined(`b${since}`, (q) => q.tags[0]! < since).includes(text)) return true;
  return until < last && joined(`a${until}`, (q) => q.tags[q.tags.length - 1]! > until).includes(text);
}

async function main() {
  const started = Date.now();
  const tags = stableTags();
  const trees = tags.map((t) => treeEntries(t.tag));
  const files: TreeFile[][] = trees.map((entries) =>
    entries.filter((e) => e.type === 'blob' && wanted(e.path)).map((e) => ({ path: e.path, oid: e.oid })));

  // each distinct blob is read and parsed once (most files do not change between tags)
  const pathOf = new Map<string, string>();
  for (const list of files) for (const f of list) pathOf.set(f.oid, f.path);
  const literals = new Map<string, Literal[]>();
  const missing = await readBlobs([...pathOf.keys()].sort(), (oid, data) => literals.set(oid, literalsOf(pathOf.get(oid)!, data)));
  if (missing.length > 0) console.warn(`${missing.length} objects missing in the mirror (their files are skipped): ${missing.slice(0, 5).join(' ')}`);

  const presence = new Map<string, Presence>();
  files.forEach((list, index) => {
    for (const f of list) {
      for (const lit of literals.get(f.oid) ?? []) {
        const occurrence = { file: f.path, utf16: lit.utf16, debug: lit.debug, common: COMMON_PACKAGES.has(packageOf(f.path)) };
        let p = presence.get(lit.text);
        if (!p) presence.set(lit.text, (p = { tags: [index], debug: lit.debug, table: lit.table, first: occurrence }));
        else {
          if (p.tags[p.tags.length - 1] !== index) p.tags.push(index);
          p.debug &&= lit.debug;
          p.table &&= lit.table;
          if (p.tags[0] === index && better(p.first, occurrence)) p.first = occurrence;
        }
      }
    }
  });

  const last = tags.length - 1;
  // names in data tables (JEDEC vendors, PCI classes, SMBIOS types) are shared with other software (dmidecode, pciutils)
  const candidates = [...presence].filter(([text, p]) => usable(text) && !p.table
    && p.tags[p.tags.length - 1]! - p.tags[0]! + 1 === p.tags.length // contiguous
    && (p.tags[0]! > 0 || p.tags[p.tags.length - 1]! < last)
    && !containedOutside(text, p, presence, last));
  const rank = ([textA, a]: [string, Presence], [textB, b]: [string, Presence]) =>
    Number(a.debug) - Number(b.debug) || Number(b.first.common) - Number(a.first.common)
    || Math.min(textB.length, 64) - Math.min(textA.length, 64) || (textA < textB ? -1 : textA > textB ? 1 : 0);
  candidates.sort(rank);

  const chosen = new Set<string>();
  const perSince = new Map<number, number>();
  const perUntil = new Map<number, number>();
  for (const [text, p] of candidates) {
    const since = p.tags[0]!;
    const until = p.tags[p.tags.length - 1]!;
    if (since > 0 && (perSince.get(since) ?? 0) < CAP) perSince.set(since, (perSince.get(since) ?? 0) + 1), chosen.add(text);
    if (until < last && (perUntil.get(until) ?? 0) < CAP) perUntil.set(until, (perUntil.get(until) ?? 0) + 1), chosen.add(text);
  }

  const markers = [...chosen].map((text) => {
    const p = presence.get(text)!;
    return {
      text,
      since: tags[p.tags[0]!]!.release,
      until: tags[p.tags[p.tags.length - 1]!]!.release,
      utf16: p.first.utf16,
      ...(p.debug ? { debug: true } : {}),
      file: p.first.file,
    };
  }).sort((a, b) => (a.since !== b.since ? (a.since < b.since ? -1 : 1) : a.text < b.text ? -1 : a.text > b.text ? 1 : 0));

  const table = {
    generatedFrom: `tianocore/edk2 tags ${tags[0]!.tag}..${tags[last]!.tag} (scripts/edk2-release-markers.ts)`,
    releases: tags.map((t) => t.release),
    markers,
  };
  const out = join(import.meta.dirname, '..', 'tables', 'edk2-release-markers.json.gz');
  const gz = gzipSync(JSON.stringify(table), { level: 9 });
  writeFileSync(out, gz);
  console.log(`${tags.length} tags, ${pathOf.size} files read, ${presence.size} strings, ${candidates.length} candidates, ${markers.length} markers, `
    + `${gz.length} bytes → ${out} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

await main();
