// Go binaries: the build information the linker embeds (go-buildinfo.ts) names the main module, every dependency
// module with its version (replacements applied), and the Go toolchain whose standard library is linked in.
// Purls pkg:golang/<module path>@<version>; the standard library as pkg:golang/stdlib with the CPE of Go.
import { nodeSource } from '../binaries/byte-source.js';
import { isElf, parseElf, readSection, vaddrToOffset } from '../binaries/elf.js';
import { buildCpe } from '../cpe.js';
import { FormatError } from '../format-error.js';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { GO_BUILDINFO_MAGIC, parseGoBuildInfo, type GoBuildInfo } from './go-buildinfo.js';
import { languageCandidate } from './language-package.js';

/** Bytes after the header read for the inline strings (module lists of large programs run to tens of KiB). */
const MAX_INFO = 1 << 20;

const isPeOrMachO = (head: Buffer): boolean =>
  (head.length >= 2 && head[0] === 0x4d && head[1] === 0x5a) || (head.length >= 4 && [0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe].includes(head.readUInt32BE(0)));

async function fromElf(file: FileView, ctx: IdentifierContext): Promise<{ info: GoBuildInfo; offset: number } | undefined> {
  const src = nodeSource(ctx.index, file.node);
  const elf = await parseElf(src, { dynamicSymbols: false });
  const section = elf.sections.find((s) => s.name === '.go.buildinfo');
  if (!section) return undefined;
  const data = await readSection(src, section, MAX_INFO);
  const info = await parseGoBuildInfo(data, async (vaddr, length) => {
    const at = vaddrToOffset(elf.segments, vaddr);
    return at === undefined ? undefined : src.read(at, length);
  });
  return info && { info, offset: section.offset };
}

/** PE and Mach-O: the header is 16-byte aligned in a data section; only the inline format is read. */
async function fromScan(file: FileView, ctx: IdentifierContext): Promise<{ info: GoBuildInfo; offset: number } | undefined> {
  for await (const { offset, data } of file.chunks()) {
    for (let at = data.indexOf(GO_BUILDINFO_MAGIC); at >= 0; at = data.indexOf(GO_BUILDINFO_MAGIC, at + 1)) {
      if ((offset + at) % 16 !== 0) continue;
      const info = await parseGoBuildInfo(await ctx.index.readRange(file.node, offset + at, 32 + MAX_INFO));
      if (info) return { info, offset: offset + at };
    }
  }
  return undefined;
}

const semver = (v: string): string | undefined => (/^v\d/.test(v) ? v : undefined);

export const goModulesIdentifier: Identifier = {
  id: 'go-modules',
  description: 'Go build information: main module, dependency modules and Go version (method go-buildinfo)',
  selects: (_node, head) => isElf(head) || isPeOrMachO(head),
  perFile: true, // reads only the file
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    let found;
    try {
      found = isElf(await file.head()) ? await fromElf(file, ctx) : await fromScan(file, ctx);
    } catch (error) {
      if (error instanceof FormatError) return [];
      throw error;
    }
    if (!found) return [];
    const { info } = found;
    const out: Candidate[] = [];
    const match = (m: string): string => `${m} (go build info, ${info.goVersion})`;
    const stdVersion = /^go(\d+\.\d+(?:\.\d+)?)/.exec(info.goVersion)?.[1];
    const std = languageCandidate(
      {
        purlType: 'golang',
        name: 'stdlib',
        version: stdVersion,
        method: 'go-buildinfo',
        match: match(`go version ${info.goVersion}`),
        primaryFile: true,
        confidence: 0.95,
        cpe: stdVersion ? buildCpe({ vendor: 'golang', product: 'go', version: stdVersion }) : undefined,
      },
      file.node,
    );
    if (std) out.push(std);
    if (info.main) {
      const main = languageCandidate(
        { purlType: 'golang', name: info.main.path, version: semver(info.main.version), method: 'go-buildinfo', match: match(`mod ${info.main.path} ${info.main.version}`), primaryFile: true, type: 'application', confidence: 0.95 },
        file.node,
      );
      if (main) {
        main.dependsOn = info.deps.map((d) => `golang:${(d.replacedBy ?? d).path}`.toLowerCase());
        out.push(main);
      }
    } else if (info.path && info.path !== 'command-line-arguments') {
      // A GOPATH build (Debian's Go packages) has no 'mod' line: the program is named by its main package path, with
      // no module version to read.
      const program = languageCandidate({ purlType: 'golang', name: info.path, method: 'go-buildinfo', match: match(`path ${info.path}`), primaryFile: true, type: 'application', confidence: 0.7 }, file.node);
      if (program) out.push(program);
    }
    for (const dep of info.deps) {
      const m = dep.replacedBy && !dep.replacedBy.path.startsWith('.') && !dep.replacedBy.path.startsWith('/') ? dep.replacedBy : dep;
      const text = dep.replacedBy ? `dep ${dep.path} ${dep.version} => ${dep.replacedBy.path} ${dep.replacedBy.version}` : `dep ${dep.path} ${dep.version}`;
      // Dependencies are compiled into the binary: it is their primary file too.
      const c = languageCandidate({ purlType: 'golang', name: m.path, version: semver(m.version), method: 'go-buildinfo', match: match(text), primaryFile: true, confidence: 0.95 }, file.node);
      if (c) out.push(c);
    }
    return out;
  },
};
