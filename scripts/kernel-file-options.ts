// Generates tables/kernel-file-options.json.gz: for each C source file of the Linux kernel, the
// configuration options that must be on for kbuild to compile it (the options of its directories, then of its
// object), read from the kbuild Makefiles of a kernel source tree. The kernel CVE triage maps a record's
// `programFiles` to options with it. Run it on a Debian linux-source package (the table, not the tree, is
// committed):
//   apt-get download linux-source-6.1 && dpkg-deb -x linux-source-6.1_*.deb src
//   (cd src/usr/src && tar -xJf linux-source-6.1.tar.xz --wildcards '*/Makefile' '*/Kbuild')
//   npx tsx scripts/kernel-file-options.ts src/usr/src/linux-source-6.1 6.1.192-2
// Kbuild is read as far as the triage needs: `obj-<cond> += x.o dir/`, composite objects (`x-y`, `x-objs`,
// `x-$(CONFIG_...)`), line continuations. Files under an unconditional path (obj-y) have an empty list; files the
// Makefiles do not name are absent (their verdict stays unknown).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';

const [root, version] = process.argv.slice(2);
if (!root || !version) throw new Error('usage: kernel-file-options.ts <kernel source tree> <package version>');

/** Options named in a kbuild condition such as `$(CONFIG_FOO)` or `$(subst m,y,$(CONFIG_BAR))`; [] for y/m. */
const optionsIn = (cond: string) => [...cond.matchAll(/CONFIG_([A-Za-z0-9_]+)/g)].map((m) => m[1]!);

interface Dir {
  /** Subdirectories with the options their entry needs. */
  subdirs: Map<string, string[]>;
  /** Object (x.o) → options. */
  objects: Map<string, string[]>;
  /** Composite object name → its parts with their own options. */
  parts: Map<string, Array<{ object: string; options: string[] }>>;
}

function readKbuild(dir: string): Dir | undefined {
  const file = ['Kbuild', 'Makefile'].map((f) => join(dir, f)).find((f) => { try { return statSync(f).isFile(); } catch { return false; } });
  if (!file) return undefined;
  const text = readFileSync(file, 'utf8').replace(/\\\n/g, ' ');
  const out: Dir = { subdirs: new Map(), objects: new Map(), parts: new Map() };
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z0-9_.-]+)-(\$\(.*?\)\)?|y|m|objs)\s*[+:]?=\s*(.*)$/.exec(line.replace(/#.*/, ''));
    if (!m) continue;
    const [, name, cond, items] = m as unknown as [string, string, string, string];
    const options = cond === 'objs' ? [] : optionsIn(cond);
    for (const item of items.split(/\s+/).filter(Boolean)) {
      if (item.includes('$')) continue;
      if (name === 'obj' || name === 'lib' || name === 'core' || name === 'drivers' || name === 'net' || name === 'libs') {
        // listed twice under different conditions (obj-$(CONFIG_USB) += usb/, obj-$(CONFIG_USB_PHY) += usb/):
        // either suffices, so this level requires nothing
        const either = (before: string[] | undefined) => (before === undefined || before.join() === options.join() ? options : []);
        if (item.endsWith('/')) out.subdirs.set(item.slice(0, -1), either(out.subdirs.get(item.slice(0, -1))));
        else if (item.endsWith('.o')) out.objects.set(item, either(out.objects.get(item)));
      } else if (item.endsWith('.o')) {
        const list = out.parts.get(name) ?? [];
        list.push({ object: item, options });
        out.parts.set(name, list);
      }
    }
  }
  return out;
}

const table: Record<string, string[]> = {};
function walk(dir: string, inherited: string[]): void {
  const kbuild = readKbuild(dir);
  if (!kbuild) return;
  const add = (object: string, options: string[]) => {
    const source = join(dir, object.replace(/\.o$/, '.c'));
    const key = relative(root!, source);
    // present with no option: built on every configuration
    table[key] = [...new Set([...inherited, ...options])];
  };
  for (const [object, options] of kbuild.objects) {
    const parts = kbuild.parts.get(object.replace(/\.o$/, ''));
    if (!parts) add(object, options);
    else for (const p of parts) add(p.object, [...options, ...p.options]);
  }
  for (const [sub, options] of kbuild.subdirs) {
    const path = join(dir, sub);
    try {
      if (statSync(path).isDirectory()) walk(path, [...new Set([...inherited, ...options])]);
    } catch { /* a directory kbuild names but the tree lacks */ }
  }
}

// the top-level Makefile lists the directories of the build; all are built on every configuration
for (const entry of readdirSync(root)) {
  const path = join(root, entry);
  if (statSync(path).isDirectory() && entry !== 'arch' && entry !== 'scripts' && entry !== 'tools' && entry !== 'Documentation' && entry !== 'samples') walk(path, []);
}
// architecture code: arch/<arch> is built only for that architecture (the triage compares the image's)
for (const arch of readdirSync(join(root, 'arch'))) {
  const path = join(root, 'arch', arch);
  if (statSync(path).isDirectory()) walk(path, []);
}
const sorted = Object.fromEntries(Object.entries(table).sort(([a], [b]) => (a < b ? -1 : 1)));
const out = join(import.meta.dirname, '..', 'tables', 'kernel-file-options.json.gz');
writeFileSync(out, gzipSync(JSON.stringify({ source: `Debian linux-source-6.1 ${version}`, files: sorted }), { level: 9 }));
console.log(`${Object.keys(sorted).length} files → ${out}`);
