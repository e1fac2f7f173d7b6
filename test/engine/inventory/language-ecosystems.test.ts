// Language-ecosystem catalogers: Python, Node.js, Go build information, Rust cargo-auditable. Samples follow the
// real formats: the Python and npm records are trimmed copies of files pip and npm write; the Go build
// information is built byte for byte per debug/buildinfo (no Go toolchain here) and the Rust section per
// cargo-auditable's format, both added to a gcc-built ELF with objcopy as the linkers place them.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGoBuildInfo } from '../../../src/engine/inventory/go-buildinfo.js';
import type { Component } from '../../../src/engine/types.js';
import { needCommands } from '../../support/requirements.js';
import { fixtureTrees, inventoryOfDirectory } from './support.js';

const fixtures = fixtureTrees('inv-lang-');
afterAll(() => fixtures.cleanup());
const find = (cs: Component[], purl: string) => cs.find((c) => c.purl === purl);

describe('Python packages', () => {
  it('lists dist-info, egg-info folders and single-file egg-info with pypi purls', async () => {
    const root = fixtures.tree({
      'usr/lib/python3/dist-packages/requests-2.28.1.dist-info/METADATA':
        'Metadata-Version: 2.1\nName: requests\nVersion: 2.28.1\nSummary: Python HTTP for Humans.\nLicense: Apache 2.0\nRequires-Dist: charset-normalizer (<3,>=2)\nRequires-Dist: urllib3 (<1.27,>=1.21.1)\nRequires-Dist: PySocks (!=1.5.7,>=1.5.6) ; extra == \'socks\'\n\nLong description: Version: 9.9.9\n',
      'usr/lib/python3/dist-packages/urllib3-1.26.12.dist-info/METADATA': 'Metadata-Version: 2.1\nName: urllib3\nVersion: 1.26.12\nLicense: MIT\n',
      'usr/lib/python3/dist-packages/Jinja2-3.1.2.egg-info/PKG-INFO': 'Metadata-Version: 2.1\nName: Jinja2\nVersion: 3.1.2\nLicense: BSD-3-Clause\n',
      'usr/lib/python3/dist-packages/zope.interface-5.5.2.egg-info': 'Metadata-Version: 1.1\nName: zope.interface\nVersion: 5.5.2\n',
    });
    const { components } = await inventoryOfDirectory(root);
    expect(components.map((c) => c.purl).sort()).toEqual(['pkg:pypi/jinja2@3.1.2', 'pkg:pypi/requests@2.28.1', 'pkg:pypi/urllib3@1.26.12', 'pkg:pypi/zope-interface@5.5.2']);
    const requests = find(components, 'pkg:pypi/requests@2.28.1')!;
    expect(requests).toMatchObject({ name: 'requests', version: '2.28.1', licenses: ['Apache 2.0'], foundBy: ['python-packages'] });
    expect(requests.evidence[0]).toMatchObject({ method: 'python-dist-info', path: 'usr/lib/python3/dist-packages/requests-2.28.1.dist-info/METADATA' });
    expect(requests.dependsOn).toEqual([find(components, 'pkg:pypi/urllib3@1.26.12')!.ref]);
  });
});

describe('Node.js packages', () => {
  it('lists installed package.json manifests (scoped too) and lock-file entries with npm purls', async () => {
    const lockV3 = {
      name: 'app',
      lockfileVersion: 3,
      packages: {
        '': { name: 'app', version: '1.0.0', dependencies: { express: '^4.18.2' } },
        'node_modules/express': { version: '4.18.2', license: 'MIT', dependencies: { debug: '2.6.9' } },
        'node_modules/express/node_modules/debug': { version: '2.6.9', license: 'MIT' },
        'node_modules/@types/node': { version: '20.10.5', license: 'MIT', dev: true },
        'packages/local': { version: '0.0.1' },
        'node_modules/local': { resolved: 'packages/local', link: true },
      },
    };
    const lockV1 = { lockfileVersion: 1, dependencies: { lodash: { version: '4.17.21' }, 'left-pad': { version: '1.3.0', dependencies: { nested: { version: '0.1.0' } } } } };
    const root = fixtures.tree({
      'usr/lib/node_modules/npm/package.json': JSON.stringify({ name: 'npm', version: '9.2.0', license: 'Artistic-2.0' }),
      'usr/lib/node_modules/npm/node_modules/@npmcli/arborist/package.json': JSON.stringify({ name: '@npmcli/arborist', version: '6.1.5', license: 'ISC' }),
      'usr/lib/node_modules/npm/node_modules/semver/package.json': JSON.stringify({ name: 'semver', version: '7.3.8' }),
      // A folder manifest inside a package: no name or version, not a package.
      'usr/lib/node_modules/npm/node_modules/semver/test/package.json': JSON.stringify({ private: true }),
      'usr/lib/node_modules/npm/node_modules/semver/lib/package.json': JSON.stringify({ type: 'commonjs' }),
      'srv/app/package-lock.json': JSON.stringify(lockV3),
      'srv/old/package-lock.json': JSON.stringify(lockV1),
    });
    const { components } = await inventoryOfDirectory(root);
    expect(components.map((c) => c.purl).sort()).toEqual([
      'pkg:npm/%40npmcli/arborist@6.1.5',
      'pkg:npm/%40types/node@20.10.5',
      'pkg:npm/debug@2.6.9',
      'pkg:npm/express@4.18.2',
      'pkg:npm/left-pad@1.3.0',
      'pkg:npm/lodash@4.17.21',
      'pkg:npm/nested@0.1.0',
      'pkg:npm/npm@9.2.0',
      'pkg:npm/semver@7.3.8',
    ]);
    expect(find(components, 'pkg:npm/%40npmcli/arborist@6.1.5')).toMatchObject({ name: '@npmcli/arborist', licenses: ['ISC'] });
    expect(find(components, 'pkg:npm/express@4.18.2')!.evidence[0].method).toBe('npm-lock');
    expect(find(components, 'pkg:npm/express@4.18.2')!.dependsOn).toEqual([find(components, 'pkg:npm/debug@2.6.9')!.ref]);
  });
});

/** Go's uvarint-length-prefixed string. */
function goString(s: string | Buffer): Buffer {
  const body = typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
  const len: number[] = [];
  let n = body.length;
  while (n >= 0x80) {
    len.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  len.push(n);
  return Buffer.concat([Buffer.from(len), body]);
}

// The sentinels cmd/go wraps the module information in (modload.infoStart / infoEnd).
const INFO_START = Buffer.from('3077af0c9274080241e1c107e6d618e6', 'hex');
const INFO_END = Buffer.from('f932433186182072008242104116d8f2', 'hex');
const MODINFO = [
  'path\tgithub.com/cli/cli/v2/cmd/gh',
  'mod\tgithub.com/cli/cli/v2\tv2.40.1\th1:abc=',
  'dep\tgithub.com/spf13/cobra\tv1.8.0\th1:7aJaZx1B85qltLMc546zn58BxxfZdR/W22ej9CFoEf0=',
  'dep\tgolang.org/x/crypto\tv0.16.0\th1:mMMrFzRSCF0GvB7Ne27XVtVAaXLrPmgPC7/v0tkwHaY=',
  'dep\tgithub.com/old/fork\tv1.0.0',
  '=>\tgithub.com/new/fork\tv1.0.5\th1:zzz=',
  'build\t-compiler=gc',
  'build\tGOARCH=amd64',
  '',
].join('\n');

/** The .go.buildinfo section of Go 1.18+: header with the inline flag, then version and module information. */
function goBuildInfo(version: string, modinfo = MODINFO): Buffer {
  const header = Buffer.alloc(32);
  Buffer.from('\xff Go buildinf:', 'latin1').copy(header);
  header[14] = 8;
  header[15] = 2;
  return Buffer.concat([header, goString(version), goString(Buffer.concat([INFO_START, Buffer.from(modinfo), INFO_END]))]);
}

describe.runIf(needCommands(['gcc', 'objcopy'], 'the Go and Rust binary tests'))('binaries with embedded dependency lists', () => {
  let root = '';
  beforeAll(() => {
    root = fixtures.tree({ 'src/main.c': 'int main(void){return 0;}\n' });
    mkdirSync(join(root, 'fs/usr/bin'), { recursive: true });
    execFileSync('gcc', ['-o', 'plain', 'src/main.c'], { cwd: root, stdio: 'pipe' });
    const header = goBuildInfo('go1.21.5');
    writeFileSync(join(root, 'go.buildinfo'), header);
    execFileSync('objcopy', ['--add-section', '.go.buildinfo=go.buildinfo', '--set-section-flags', '.go.buildinfo=alloc,data', 'plain', 'fs/usr/bin/gh'], { cwd: root, stdio: 'pipe' });
    // A GOPATH build as Debian's fzf 0.38.0-1+b1 has it: 'path' and 'build' lines, no 'mod' line.
    writeFileSync(join(root, 'gopath.buildinfo'), goBuildInfo('go1.19.8', 'path\tgithub.com/junegunn/fzf\nbuild\t-compiler=gc\nbuild\t-trimpath=true\nbuild\tGOARCH=amd64\n'));
    mkdirSync(join(root, 'gopath/usr/bin'), { recursive: true });
    execFileSync('objcopy', ['--add-section', '.go.buildinfo=gopath.buildinfo', '--set-section-flags', '.go.buildinfo=alloc,data', 'plain', 'gopath/usr/bin/fzf'], { cwd: root, stdio: 'pipe' });
    const audit = {
      packages: [
        { name: 'ripgrep', version: '13.0.0', source: 'local', kind: 'runtime', dependencies: [1, 2], root: true },
        { name: 'regex', version: '1.7.1', source: 'crates.io', dependencies: [] },
        { name: 'memchr', version: '2.5.0', source: 'crates.io' },
        { name: 'cc', version: '1.0.79', source: 'crates.io', kind: 'build' },
      ],
    };
    writeFileSync(join(root, 'dep-v0'), deflateSync(Buffer.from(JSON.stringify(audit))));
    execFileSync('objcopy', ['--add-section', '.dep-v0=dep-v0', 'plain', 'fs/usr/bin/rg'], { cwd: root, stdio: 'pipe' });
  });

  it('lists the Go main module, its dependency modules (replacements applied) and the standard library', async () => {
    const { components } = await inventoryOfDirectory(join(root, 'fs'));
    const go = components.filter((c) => c.purl?.startsWith('pkg:golang/'));
    expect(go.map((c) => c.purl).sort()).toEqual([
      'pkg:golang/github.com/cli/cli/v2@v2.40.1',
      'pkg:golang/github.com/new/fork@v1.0.5',
      'pkg:golang/github.com/spf13/cobra@v1.8.0',
      'pkg:golang/golang.org/x/crypto@v0.16.0',
      'pkg:golang/stdlib@1.21.5',
    ]);
    expect(find(components, 'pkg:golang/stdlib@1.21.5')).toMatchObject({ cpe: 'cpe:2.3:a:golang:go:1.21.5:*:*:*:*:*:*:*', paths: ['usr/bin/gh'] });
    const main = find(components, 'pkg:golang/github.com/cli/cli/v2@v2.40.1')!;
    expect(main).toMatchObject({ name: 'github.com/cli/cli/v2', type: 'application' });
    expect(main.dependsOn).toHaveLength(3);
    expect(find(components, 'pkg:golang/github.com/new/fork@v1.0.5')!.evidence[0].match).toContain('github.com/old/fork v1.0.0 => github.com/new/fork v1.0.5');
  });

  it('lists a GOPATH-built program (no module line) by its main package path, without a version', async () => {
    const { components } = await inventoryOfDirectory(join(root, 'gopath'));
    const go = components.filter((c) => c.purl?.startsWith('pkg:golang/'));
    expect(go.map((c) => c.purl).sort()).toEqual(['pkg:golang/github.com/junegunn/fzf', 'pkg:golang/stdlib@1.19.8']);
    expect(find(components, 'pkg:golang/github.com/junegunn/fzf')).toMatchObject({ name: 'github.com/junegunn/fzf', type: 'application', paths: ['usr/bin/fzf'] });
  });

  it('lists the crates of a cargo-auditable binary without build-only crates', async () => {
    const { components } = await inventoryOfDirectory(join(root, 'fs'));
    const crates = components.filter((c) => c.purl?.startsWith('pkg:cargo/'));
    expect(crates.map((c) => c.purl).sort()).toEqual(['pkg:cargo/memchr@2.5.0', 'pkg:cargo/regex@1.7.1', 'pkg:cargo/ripgrep@13.0.0']);
    const rg = find(components, 'pkg:cargo/ripgrep@13.0.0')!;
    expect(rg).toMatchObject({ type: 'application', paths: ['usr/bin/rg'] });
    expect(rg.dependsOn?.sort()).toEqual(['memchr@2.5.0', 'regex@1.7.1']);
  });
});

describe('Go build information, pre-1.18 pointer format', () => {
  it('follows the string headers through the address map', async () => {
    // Header at 0x1000 (ptrSize 8, little-endian, no inline flag): pointers to two Go string headers.
    const memory = new Map<number, Buffer>();
    const version = Buffer.from('go1.16.15');
    const modinfo = Buffer.concat([INFO_START, Buffer.from(MODINFO), INFO_END]);
    const strHeader = (ptr: number, len: number) => {
      const b = Buffer.alloc(16);
      b.writeBigUInt64LE(BigInt(ptr));
      b.writeBigUInt64LE(BigInt(len), 8);
      return b;
    };
    memory.set(0x2000, strHeader(0x3000, version.length));
    memory.set(0x2010, strHeader(0x4000, modinfo.length));
    memory.set(0x3000, version);
    memory.set(0x4000, modinfo);
    const header = Buffer.alloc(32);
    Buffer.from('\xff Go buildinf:', 'latin1').copy(header);
    header[14] = 8;
    header[15] = 0;
    header.writeBigUInt64LE(0x2000n, 16);
    header.writeBigUInt64LE(0x2010n, 24);
    const info = await parseGoBuildInfo(header, async (addr, length) => memory.get(addr)?.subarray(0, length));
    expect(info).toMatchObject({ goVersion: 'go1.16.15', path: 'github.com/cli/cli/v2/cmd/gh', main: { path: 'github.com/cli/cli/v2', version: 'v2.40.1' } });
    expect(info!.deps).toHaveLength(3);
    expect(info!.settings.get('GOARCH')).toBe('amd64');
  });
});

describe('PHP, Java, Erlang and .NET records', () => {
  it('lists Composer, Maven (pom.properties over the manifest), JAR-manifest-only, OTP application and NuGet packages', async () => {
    const root = fixtures.tree({
      'var/www/vendor/composer/installed.json': JSON.stringify({
        packages: [
          { name: 'monolog/monolog', version: '3.5.0', license: ['MIT'], require: { php: '>=8.1', 'psr/log': '^2.0 || ^3.0' } },
          { name: 'psr/log', version: 'v3.0.0', license: ['MIT'] },
        ],
      }),
      'opt/app/lib/commons-text-1.10.0.jar_extract/META-INF/MANIFEST.MF': 'Manifest-Version: 1.0\nBundle-SymbolicName: org.apache.commons.commons-text\nBundle-Version: 1.10.0\n',
      'opt/app/lib/commons-text-1.10.0.jar_extract/META-INF/maven/org.apache.commons/commons-text/pom.properties': '#Created by Apache Maven 3.8.6\ngroupId=org.apache.commons\nartifactId=commons-text\nversion=1.10.0\n',
      'opt/app/lib/legacy.jar_extract/META-INF/MANIFEST.MF': 'Manifest-Version: 1.0\nImplementation-Title: legacy-client\nImplementation-Version: 2.3\nImplementation-Vendor-Id: com.example\n',
      'usr/lib/erlang/lib/ssl-10.8.7/ebin/ssl.app': '%% This is an -*- erlang -*- file.\n{application, ssl,\n   [{description, "Erlang/OTP SSL application"},\n    {vsn, "10.8.7"},\n    {modules, [ssl]}]}.\n',
      'opt/svc/Service.deps.json': JSON.stringify({
        libraries: {
          'Service/1.0.0': { type: 'project', serviceable: false },
          'Newtonsoft.Json/13.0.1': { type: 'package', serviceable: true, sha512: 'sha512-x' },
        },
      }),
    });
    const { components } = await inventoryOfDirectory(root);
    expect(components.map((c) => c.purl).sort()).toEqual([
      'pkg:composer/monolog/monolog@3.5.0',
      'pkg:composer/psr/log@3.0.0',
      'pkg:hex/ssl@10.8.7',
      'pkg:maven/com.example/legacy-client@2.3',
      'pkg:maven/org.apache.commons/commons-text@1.10.0',
      'pkg:nuget/Newtonsoft.Json@13.0.1',
    ]);
    expect(find(components, 'pkg:composer/monolog/monolog@3.5.0')!.dependsOn).toEqual([find(components, 'pkg:composer/psr/log@3.0.0')!.ref]);
    expect(find(components, 'pkg:maven/org.apache.commons/commons-text@1.10.0')!.evidence[0].method).toBe('maven-pom-properties');
    expect(find(components, 'pkg:hex/ssl@10.8.7')!.evidence[0].method).toBe('erlang-app-resource');
  });
});

describe('Perl (CPAN) distributions', () => {
  // perllocal.pod exactly as ExtUtils::MakeMaker 7.64 (perl 5.36, Debian bookworm) appended it for two modules
  // installed with `perl Makefile.PL && make install`; the MYMETA.json trimmed from the first one's build.
  const perllocal = '=head2 Sat Nov 28 02:40:23 2026: C<Module> L<Foo::Bar|Foo::Bar>\n\n=over 4\n\n=item *\n\nC<installed into: /usr/local/share/perl/5.36.0>\n\n=item *\n\nC<LINKTYPE: dynamic>\n\n=item *\n\nC<VERSION: 1.23>\n\n=item *\n\nC<EXE_FILES: >\n\n=back\n\n=head2 Sat Nov 28 02:41:26 2026: C<Module> L<Baz::Qux|Baz::Qux>\n\n=over 4\n\n=item *\n\nC<installed into: /usr/local/share/perl/5.36.0>\n\n=item *\n\nC<LINKTYPE: dynamic>\n\n=item *\n\nC<VERSION: 0.05_01>\n\n=item *\n\nC<EXE_FILES: >\n\n=back\n\n';
  const mymeta = '{\n   "abstract" : "test",\n   "author" : [\n      "x"\n   ],\n   "dynamic_config" : 0,\n   "generated_by" : "ExtUtils::MakeMaker version 7.64, CPAN::Meta::Converter version 2.150010",\n   "license" : [\n      "perl_5"\n   ],\n   "meta-spec" : {\n      "url" : "http://search.cpan.org/perldoc?CPAN::Meta::Spec",\n      "version" : 2\n   },\n   "name" : "Foo-Bar",\n   "release_status" : "stable",\n   "version" : "1.23",\n   "x_serialization_backend" : "JSON::PP version 4.07"\n}\n';

  it('lists the distributions perllocal.pod records and the CPAN::Meta files, as one component per distribution', async () => {
    const root = fixtures.tree({
      'usr/local/lib/x86_64-linux-gnu/perl/5.36.0/perllocal.pod': perllocal,
      'root/.cpanm/work/1/Foo-Bar-1.23/MYMETA.json': mymeta,
      // a META.json that is not CPAN's (no meta-spec) is not a Perl distribution
      'www/app/META.json': '{"name": "dashboard", "version": "2.0.0"}',
    });
    const { components } = await inventoryOfDirectory(root);
    expect(components.map((c) => c.purl).sort()).toEqual(['pkg:cpan/Baz-Qux@0.05_01', 'pkg:cpan/Foo-Bar@1.23']);
    const foo = find(components, 'pkg:cpan/Foo-Bar@1.23')!;
    expect(foo.evidence.map((e) => e.method).sort()).toEqual(['perl-cpan-meta', 'perl-perllocal']);
    expect(foo.licenses).toEqual(['perl_5']);
  });
});

describe('Lua rocks', () => {
  // mylib: installed here by LuaRocks 3.8.0 (`luarocks --tree T make mylib-1.2.3-1.rockspec`), the tree's layout and
  // rockspec as it wrote them; LuaSocket: the head of its published 2.0.2-3 rockspec, in the folder LuaRocks uses.
  const mylib = 'package = "mylib"\nversion = "1.2.3-1"\nsource = { url = "file:///tmp/lr/src/mylib" }\ndescription = { summary = "test", license = "MIT" }\nbuild = { type = "builtin", modules = { mylib = "mylib.lua" } }\n';
  const luasocket = 'package = "LuaSocket"\nversion = "2.0.2-3"\nsource = {\n   url = "http://luaforge.net/frs/download.php/2664/luasocket-2.0.2.tar.gz",\n   md5 = "41445b138deb7bcfe97bff957503da8e"\n}\ndescription = {\n   summary = "Network support for the Lua language",\n   license = "MIT/X11"\n}\n';

  it('lists the rocks of a LuaRocks tree by their installed rockspecs, and ignores rockspecs outside a tree', async () => {
    const root = fixtures.tree({
      'usr/local/lib/luarocks/rocks-5.1/mylib/1.2.3-1/mylib-1.2.3-1.rockspec': mylib,
      'usr/local/lib/luarocks/rocks-5.1/luasocket/2.0.2-3/luasocket-2.0.2-3.rockspec': luasocket,
      // a source checkout's rockspec is not an installed rock, nor one whose folders disagree with it
      'home/dev/luasocket/luasocket-scm-1.rockspec': luasocket,
      'usr/local/lib/luarocks/rocks-5.1/other/9.9-1/mylib-1.2.3-1.rockspec': mylib,
    });
    const { components } = await inventoryOfDirectory(root);
    expect(components.map((c) => c.purl).sort()).toEqual(['pkg:luarocks/luasocket@2.0.2-3', 'pkg:luarocks/mylib@1.2.3-1']);
    expect(find(components, 'pkg:luarocks/luasocket@2.0.2-3')!.licenses).toEqual(['MIT/X11']);
  });
});

describe.runIf(needCommands(['clang', 'ld.lld'], 'the Rust-in-PE test'))('a Windows Rust program built with cargo-auditable', () => {
  it('lists the crates of its .dep-v0 section, which PE pads to the file alignment', async () => {
    const audit = {
      packages: [
        { name: 'sniffer', version: '0.4.2', source: 'local', kind: 'runtime', dependencies: [1], root: true },
        { name: 'windows-sys', version: '0.52.0', source: 'crates.io' },
        { name: 'cc', version: '1.0.83', source: 'crates.io', kind: 'build' },
      ],
    };
    const bytes = [...deflateSync(Buffer.from(JSON.stringify(audit)))].join(',');
    // the section as Rust's #[link_section = ".dep-v0"] static emits it, linked by lld-link
    const root = fixtures.tree({
      'src/main.c': `__attribute__((section(".dep-v0"), used)) static const unsigned char dep[] = {${bytes}};\nint main(void){return 0;}\n`,
    });
    mkdirSync(join(root, 'fs/Program Files/Sniffer'), { recursive: true });
    execFileSync('clang', ['--target=x86_64-pc-windows-msvc', '-fuse-ld=lld', '-nostdlib', '-Wl,/entry:main', '-o', 'fs/Program Files/Sniffer/sniffer.exe', 'src/main.c'], { cwd: root, stdio: 'pipe' });
    const { components } = await inventoryOfDirectory(join(root, 'fs'));
    const crates = components.filter((c) => c.purl?.startsWith('pkg:cargo/'));
    expect(crates.map((c) => c.purl).sort()).toEqual(['pkg:cargo/sniffer@0.4.2', 'pkg:cargo/windows-sys@0.52.0']);
    expect(find(components, 'pkg:cargo/sniffer@0.4.2')).toMatchObject({ type: 'application', paths: ['Program Files/Sniffer/sniffer.exe'] });
  });
});
