// Harvests test samples for version-signature families from real binaries: every file of packages unpacked with
// `dpkg-deb -x` into ROOT/<package>/ is run through the version-signature identifier, and for each family hit the
// smallest window of the file's own bytes (snapped to NUL boundaries) that still gives the same family and version
// on its own is printed as a sample entry, with its source. Nothing is invented: the text is the binary's bytes.
//   npx tsx bench/inventory/harvest-samples.ts ROOT [family,family,...] > samples.txt
// One sample per family, version and package; HARVEST_PER_FILE=1 gives one per file (to reach every form).
// ROOT/<package>.version holds the package version (written by the caller, e.g. from `dpkg-deb -f X.deb Version`).
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { FileIndex } from '../../src/engine/file-index.js';
import type { Candidate, FileView } from '../../src/engine/inventory/identifier.js';
import { versionSignatureIdentifier } from '../../src/engine/inventory/version-signatures.identifier.js';
import type { FileNode } from '../../src/engine/types.js';

const [root, familyList] = process.argv.slice(2);
if (!root) throw new Error('usage: harvest-samples.ts ROOT [families]');
const wanted = familyList ? new Set(familyList.split(',')) : undefined;
const SKIP = /\/usr\/share\/(?:doc|man|info|lintian|locale|bug|bash-completion)\//;
const MAX = 96 << 20;

function viewOf(data: Buffer, name: string): FileView {
  const node: FileNode = { path: `root/${name}`, fsPath: `/usr/bin/${name}`, kind: 'file', size: data.length, type: 'elf', depth: 1 };
  return { node, head: async () => data.subarray(0, 4096), text: async () => data.toString('utf8'), async *chunks() { yield { offset: 0, data }; } };
}

const ctx = { index: new FileIndex('/nonexistent', []), binaries: new Map(), containers: new Set<string>(), note: () => {} };

async function identify(data: Buffer, name: string): Promise<Candidate[]> {
  if (!versionSignatureIdentifier.selects(viewOf(data, name).node, data.subarray(0, 4096))) return [];
  return versionSignatureIdentifier.identify(viewOf(data, name), ctx);
}

/** The sample the unit test wraps: ELF-like padding around the text (test/engine/inventory/version-signatures.test.ts). */
function wrapped(text: Buffer, firmware: boolean): Buffer {
  const pad = Buffer.alloc(700, 0);
  for (let i = 0; i < pad.length; i += 7) pad[i] = (i * 31) & 0xff;
  return Buffer.concat([Buffer.from(firmware ? '_FVH\x01\x01\x01' : '\x7fELF\x01\x01\x01', 'latin1'), pad, text, pad]);
}

/** Start/end snapped outward to the nearest NUL (or newline) so the window holds whole strings. */
function window(data: Buffer, from: number, to: number): Buffer {
  let s = Math.max(0, from);
  let e = Math.min(data.length, to);
  while (s > 0 && from - s < 80 && data[s - 1] !== 0) s--;
  while (e < data.length && e - to < 80 && data[e] !== 0) e++;
  return data.subarray(s, Math.min(data.length, e + 1));
}

const reproduces = async (text: Buffer, name: string, c: Candidate, firmware: boolean): Promise<boolean> =>
  (await identify(wrapped(text, firmware), name)).some((x) => x.key === c.key && x.version === c.version);

/** A sample whose version is read from code far from its string: the code's and the string's own bytes, NULs between. */
interface SparseSample {
  code: Buffer;
  gap: number;
  text: Buffer;
}

async function sparseSampleFor(data: Buffer, name: string, c: Candidate): Promise<SparseSample | undefined> {
  const distance = Number(/at the call (\d+) bytes before/.exec(c.evidence.match ?? '')?.[1]);
  const at = c.evidence.offset ?? 0;
  if (!distance) return undefined;
  const firmware = !data.subarray(0, 4).equals(Buffer.from('\x7fELF', 'latin1'));
  for (const span of [16, 32, 64]) {
    const codeEnd = at - distance + span;
    const code = data.subarray(at - distance - span, codeEnd);
    const text = data.subarray(at - 1, at + 17);
    const gap = text.byteOffset - data.byteOffset - codeEnd;
    const joined = Buffer.concat([code, Buffer.alloc(gap), text]);
    if (await reproduces(joined, name, c, firmware)) return { code, gap, text };
  }
  return undefined;
}

async function sampleFor(data: Buffer, name: string, c: Candidate): Promise<Buffer | undefined> {
  const at = c.evidence.offset ?? 0;
  const firmware = !data.subarray(0, 4).equals(Buffer.from('\x7fELF', 'latin1'));
  for (const span of [24, 48, 96, 160, 240]) {
    const text = window(data, at - span, at + span + 40);
    if (await reproduces(text, name, c, firmware)) return text;
  }
  // Bare version strings: the marker lives elsewhere in the file; both real windows are kept.
  const marker = /marker '([^']+)'/.exec(c.evidence.match ?? '')?.[1];
  if (marker) {
    const m = data.indexOf(marker, 0, 'latin1');
    if (m >= 0) {
      const text = Buffer.concat([window(data, m - 8, m + marker.length), window(data, at - 8, at + 16)]);
      if (await reproduces(text, name, c, firmware)) return text;
    }
  }
  return undefined;
}

function literal(b: Buffer): string {
  let out = '';
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    const next = b[i + 1];
    if (c === 0) out += next !== undefined && next >= 0x30 && next <= 0x39 ? '\\x00' : '\\0';
    else if (c === 0x27) out += "\\'";
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c >= 0x20 && c < 0x7f) out += String.fromCharCode(c);
    else out += `\\x${c.toString(16).padStart(2, '0')}`;
  }
  return `'${out}'`;
}

function* files(dir: string): Generator<string> {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    const st = lstatSync(p);
    if (st.isDirectory()) yield* files(p);
    else if (st.isFile() && st.size > 64 && st.size < MAX && !SKIP.test(p)) yield p;
  }
}

const seen = new Set<string>();
for (const pkg of readdirSync(root).sort()) {
  const dir = join(root, pkg);
  if (!lstatSync(dir).isDirectory()) continue;
  const version = existsSync(`${dir}.version`) ? readFileSync(`${dir}.version`, 'utf8').trim() : '?';
  for (const path of files(dir)) {
    const data = readFileSync(path);
    const name = basename(path);
    for (const c of await identify(data, name)) {
      if (wanted && !wanted.has(c.key)) continue;
      const key = `${c.key}@${c.version}@${pkg}${process.env.HARVEST_PER_FILE ? `@${path}` : ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const source = `Debian bookworm ${pkg} ${version}, /${relative(dir, path)}`;
      const sparse = await sparseSampleFor(data, name, c);
      if (sparse) {
        const v = c.version === undefined ? '' : `, version: '${c.version}'`;
        console.log(`  { family: '${c.key}', file: '${name}', text: ${literal(sparse.code)} + '\\0'.repeat(${sparse.gap}) + ${literal(sparse.text)}${v}, source: '${source}' },`);
        continue;
      }
      const sample = await sampleFor(data, name, c);
      if (!sample) {
        console.log(`// NO SAMPLE ${c.key}@${c.version} from ${source}: ${c.evidence.match}`);
        continue;
      }
      const v = c.version === undefined ? '' : `, version: '${c.version}'`;
      console.log(`  { family: '${c.key}', file: '${name}', text: ${literal(sample)}${v}, source: '${source}' },`);
    }
  }
}
