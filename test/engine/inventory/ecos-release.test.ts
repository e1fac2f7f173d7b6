// eCos release from the code that prints it (issue #14): the vendor shell's print_build_tag passes
// 'eCos Release: %d.%d.%d\n' with three compile-time constants. The inputs are compiled here for MIPS32 (both byte
// orders), ARM and Thumb, linked at a load address and flattened to raw images as eCos firmware ships.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatCallArgs } from '../../../src/engine/binaries/format-call-args.js';
import { FileIndex } from '../../../src/engine/file-index.js';
import { createFileView } from '../../../src/engine/inventory/file-view.js';
import type { Candidate } from '../../../src/engine/inventory/identifier.js';
import { versionSignatureIdentifier } from '../../../src/engine/inventory/version-signatures.identifier.js';
import { needCommands } from '../../support/requirements.js';
import { buildDir } from '../binaries/toolchain.js';

const FORMAT = 'eCos Release: %d.%d.%d\\n';

/** A vendor shell's build-tag print among other code and strings; VERSION_ARGS is the argument list of the eCos line. */
const SOURCE = `
extern int diag_printf(const char *fmt, ...);
extern int sprintf_like(char *buf, const char *fmt, ...);
extern int saved_version[3];
static int counter;
char tag_buffer[64];

__attribute__((noinline)) void print_build_tag(void)
{
    diag_printf("Broadcom Corporation, BFC version %s\\n", "5.7.1");
#ifdef PRINT_TAG
    diag_printf("${FORMAT}", VERSION_ARGS);
#endif
    diag_printf("Build time: %s %s\\n", "Jan  1 2015", "12:00:00");
}

#ifdef SECOND_TAG
__attribute__((noinline)) void print_other_tag(void) { diag_printf("${FORMAT}", 2, 0, 0); }
#endif

#ifdef UNREFERENCED
__attribute__((used)) const char ecos_tag[] = "${FORMAT}";
#endif

__attribute__((noinline)) int other(int x)
{
    counter += x;
    diag_printf("%d.%d.%d\\n", 9, 8, 7);
    sprintf_like(tag_buffer, "v%d.%d", 4, 2);
    diag_printf("counter %d %d %d\\n", counter, x, 7);
    return counter;
}

__attribute__((noipa)) int diag_printf(const char *fmt, ...) { return *fmt; }
__attribute__((noipa)) int sprintf_like(char *buf, const char *fmt, ...) { *buf = *fmt; return 0; }
int saved_version[3] = { 1, 2, 3 };
void _start(void) { print_build_tag(); other(1); }
`;

interface Target {
  label: string;
  cc: string;
  flags: string[];
  /** objcopy's generic input format for the ELF (the host objcopy reads any ELF through it). */
  bfd: 'elf32-little' | 'elf32-big';
  loadAddress: number;
}

const MIPS = ['-O2', '-fno-pic', '-mno-abicalls', '-ffreestanding'];
const ARMV5 = ['-march=armv5te', '-mfloat-abi=soft', '-O2', '-fno-pic', '-ffreestanding'];
const ARMV7 = ['-march=armv7-a', '-mfloat-abi=soft', '-O2', '-fno-pic', '-ffreestanding'];
const TARGETS: Target[] = [
  { label: 'MIPS little-endian', cc: 'mipsel-linux-gnu-gcc', flags: ['-EL', ...MIPS], bfd: 'elf32-little', loadAddress: 0x80010000 },
  { label: 'MIPS big-endian', cc: 'mipsel-linux-gnu-gcc', flags: ['-EB', ...MIPS], bfd: 'elf32-big', loadAddress: 0x80004000 },
  { label: 'ARM (literal pool)', cc: 'arm-linux-gnueabihf-gcc', flags: ['-marm', ...ARMV5], bfd: 'elf32-little', loadAddress: 0x10000 },
  { label: 'ARM (movw/movt)', cc: 'arm-linux-gnueabihf-gcc', flags: ['-marm', ...ARMV7], bfd: 'elf32-little', loadAddress: 0x20000 },
  { label: 'Thumb', cc: 'arm-linux-gnueabihf-gcc', flags: ['-mthumb', ...ARMV5], bfd: 'elf32-little', loadAddress: 0x8000 },
  { label: 'Thumb-2', cc: 'arm-linux-gnueabihf-gcc', flags: ['-mthumb', ...ARMV7], bfd: 'elf32-little', loadAddress: 0x80008000 },
];

const ready = needCommands(['mipsel-linux-gnu-gcc', 'arm-linux-gnueabihf-gcc', 'objcopy'], 'the eCos release tests');

describe.runIf(ready)('eCos release from the call that prints it', () => {
  const dir = buildDir('ecos-release-');
  let built = 0;

  /** Compiles SOURCE with `defines`, links it at the target's load address; returns the raw image and the ELF. */
  function build(t: Target, defines: string[]): { raw: Buffer; elf: Buffer; name: string } {
    const name = `fw${built++}`;
    writeFileSync(join(dir(), `${name}.c`), SOURCE);
    const link = ['-nostdlib', '-static', `-Wl,-Ttext=0x${t.loadAddress.toString(16)}`, '-Wl,-e,_start', '-Wl,--build-id=none'];
    execFileSync(t.cc, [...t.flags, ...defines.map((d) => `-D${d}`), ...link, '-o', `${name}.elf`, `${name}.c`], { cwd: dir(), stdio: 'pipe' });
    execFileSync('objcopy', ['-I', t.bfd, '-O', 'binary', '-j', '.text', '-j', '.rodata', `${name}.elf`, `${name}.bin`], { cwd: dir(), stdio: 'pipe' });
    return { raw: readFileSync(join(dir(), `${name}.bin`)), elf: readFileSync(join(dir(), `${name}.elf`)), name };
  }

  async function identify(data: Buffer, name: string): Promise<Candidate[]> {
    writeFileSync(join(dir(), name), data);
    const index = new FileIndex(dir(), [{ path: name, fsPath: `/${name}`, kind: 'file', size: data.length, type: 'data', depth: 0 }]);
    const node = index.get(name)!;
    const found = await versionSignatureIdentifier.identify(createFileView(index, node, data.subarray(0, 4096)), { index, binaries: new Map(), containers: new Set(), note: () => {} });
    return found.filter((c) => c.key === 'ecos');
  }

  const releases = ['3.0.0', '2.0.1', '3.0.0', '1.3.1', '2.0.0', '3.0.0'];
  it.each(TARGETS.map((t, n) => [t.label, t, releases[n]!] as const))('reads the release from %s code in a raw image', async (_label, t, release) => {
    const { raw, name } = build(t, ['PRINT_TAG', `VERSION_ARGS=${release.replace(/\./g, ',')}`]);
    const at = raw.indexOf('eCos Release');
    const calls = formatCallArgs(raw, at);
    expect(calls.map((c) => [c.args, c.base, c.address])).toEqual([[release.split('.').map(Number), t.loadAddress, t.loadAddress + at]]);
    const [ecos, ...more] = await identify(raw, `${name}.raw`);
    expect(more).toEqual([]);
    expect(ecos).toMatchObject({ name: 'ecos', version: release, confidence: 0.8, purl: `pkg:generic/ecos@${release}` });
    expect(ecos!.cpe).toBe(`cpe:2.3:o:ecoscentric:ecos:${release.replace(/^(\d+\.\d+)\.0$/, '$1')}:*:*:*:*:*:*:*`);
    expect(ecos!.evidence).toMatchObject({ method: 'version-signature', offset: at - 1 }); // the match starts at the NUL before
    expect(ecos!.evidence.match).toMatch(new RegExp(`^eCos Release: %d\\.%d\\.%d \\(${calls[0]!.isa} \\S+ at 0x${calls[0]!.call.toString(16)}: `));
  });

  it('reads it from an ELF file through its segments', async () => {
    const { elf, name } = build(TARGETS[1]!, ['PRINT_TAG', 'VERSION_ARGS=3,0,0']);
    const found = await identify(elf, `${name}.elf`);
    expect(found.map((c) => `${c.version}@${c.confidence}`)).toEqual(['3.0.0@0.8']);
    expect(found[0]!.evidence.match).toMatch(/\(mips-be jal at 0x[\da-f]+: li a1, 3; move a2, zero = 0; move a3, zero = 0 \(string at 0x8000[\da-f]{4}\)\)$/);
  });

  it.each(TARGETS.map((t) => [t.label, t] as const))('gives presence only when the arguments are not constants (%s)', async (_label, t) => {
    const { raw, name } = build(t, ['PRINT_TAG', 'VERSION_ARGS=saved_version[0],saved_version[1],saved_version[2]']);
    const calls = formatCallArgs(raw, raw.indexOf('eCos Release'));
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args).toEqual([undefined, undefined, undefined]);
    expect((await identify(raw, `${name}.raw`)).map((c) => [c.version, c.cpe, c.confidence])).toEqual([[undefined, undefined, 0.7]]);
  });

  it.each(TARGETS.map((t) => [t.label, t] as const))('gives presence only when no code passes the string (%s)', async (_label, t) => {
    const { raw, name } = build(t, ['UNREFERENCED']);
    expect(formatCallArgs(raw, raw.indexOf('eCos Release'))).toEqual([]);
    expect((await identify(raw, `${name}.raw`)).map((c) => c.version)).toEqual([undefined]);
  });

  it('gives no version when two calls pass the string with different constants', async () => {
    const { raw, name } = build(TARGETS[0]!, ['PRINT_TAG', 'VERSION_ARGS=3,0,0', 'SECOND_TAG']);
    expect(formatCallArgs(raw, raw.indexOf('eCos Release')).map((c) => c.args)).toEqual([
      [3, 0, 0],
      [2, 0, 0],
    ]);
    expect((await identify(raw, `${name}.raw`)).map((c) => c.version)).toEqual([undefined]);
  });

  it('gives no version when the image sits at an offset its load address cannot explain', async () => {
    const { raw, name } = build(TARGETS[0]!, ['PRINT_TAG', 'VERSION_ARGS=3,0,0']);
    const shifted = Buffer.concat([Buffer.alloc(0x40), raw]);
    expect(formatCallArgs(shifted, shifted.indexOf('eCos Release'))).toEqual([]);
    expect((await identify(shifted, `${name}.shifted`)).map((c) => c.version)).toEqual([undefined]);
  });

  it('reads the constants after a string passed in another argument register', () => {
    for (const t of [TARGETS[1]!, TARGETS[2]!]) {
      const { raw } = build(t, []);
      const calls = formatCallArgs(raw, raw.indexOf('v%d.%d'), { argument: 1, count: 2 });
      expect(calls.map((c) => c.args)).toEqual([[4, 2]]);
    }
  });
});

describe('eCos presence without code', () => {
  it('finds eCos present, without a version, in random bytes holding the string', async () => {
    // A fixed xorshift stream: the same bytes every run.
    const data = Buffer.alloc(1 << 20);
    let s = 0x2545f491;
    for (let i = 0; i < data.length; i += 4) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      data.writeInt32LE(s | 0, i);
    }
    const at = 0x54320;
    data.write(`\0${FORMAT.replace('\\n', '\n')}\0`, at - 1, 'latin1');
    expect(formatCallArgs(data, at)).toEqual([]);
    const found = await versionSignatureIdentifier.identify(
      {
        node: { path: 'root/random.bin', fsPath: '/random.bin', kind: 'file', size: data.length, type: 'data', depth: 1 },
        head: async () => data.subarray(0, 4096),
        text: async () => data.toString('utf8'),
        async *chunks() {
          yield { offset: 0, data };
        },
      },
      { index: new FileIndex('/nonexistent', []), binaries: new Map(), containers: new Set(), note: () => {} },
    );
    expect(found.filter((c) => c.key === 'ecos').map((c) => [c.version, c.cpe, c.confidence])).toEqual([[undefined, undefined, 0.7]]);
  });
});
