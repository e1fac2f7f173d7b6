// .NET assemblies identified from their CLI metadata (the Assembly table of the #~ stream), on assemblies built
// here with Mono's C# compiler (mcs) and checked against what the compiler was told.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bufferSource } from '../../../src/engine/binaries/byte-source.js';
import { readCliAssembly } from '../../../src/engine/binaries/cli-metadata.js';
import { parsePe } from '../../../src/engine/binaries/pe.js';
import { assemblyRelease, nugetVersion } from '../../../src/engine/inventory/pe-version.identifier.js';
import { needCommands } from '../../support/requirements.js';
import { fixtureTrees, inventoryOfDirectory } from './support.js';

describe('assembly release', () => {
  it('takes the AssemblyVersion in NuGet form', () => {
    expect(nugetVersion('2.8.7.0')).toBe('2.8.7');
    expect(nugetVersion('1.2.3.4')).toBe('1.2.3.4');
    expect(assemblyRelease('0.9.5.0', '0.9.5.0')).toBe('0.9.5');
    expect(assemblyRelease('0.0.0.0', '0.0.0.0')).toBeUndefined();
  });

  it('reads a release pinned to major.minor from the version resource', () => {
    // Debian bookworm libnewtonsoft-json5.0-cil 6.0.8: Assembly Newtonsoft.Json 6.0.0.0, ProductVersion 6.0.8.18111.
    expect(assemblyRelease('6.0.0.0', '6.0.8.18111', '6.0.8.18111')).toBe('6.0.8');
    expect(assemblyRelease('13.0.0.0', '13.0.3+0a2e291c0d9c0c7675d445703e51750363a549ef', '13.0.3.27908')).toBe('13.0.3');
    expect(assemblyRelease('2.0.0.0', '2.0.7-beta.1+abc')).toBe('2.0.7-beta.1');
    // Debian bookworm libdbus2.0-cil 0.8.1: Assembly dbus-sharp 2.0.0.0, FileVersion 0.8.1.
    expect(assemblyRelease('2.0.0.0', undefined, '0.8.1')).toBe('0.8.1');
    expect(assemblyRelease('1.2.0.0', 'whatever', '0.0.0.0')).toBe('1.2.0');
    // A deliberate build or revision number is the release: Mono's mcs.exe 6.8.0.105 has FileVersion 4.6.57.0.
    expect(assemblyRelease('6.8.0.105', '4.6.57.0', '4.6.57.0')).toBe('6.8.0.105');
    expect(assemblyRelease('0.9.5.0', '1.0.0.0')).toBe('0.9.5');
  });
});

describe.runIf(needCommands(['mcs'], 'the .NET assembly tests built with mcs'))('assemblies built with mcs', () => {
  const trees = fixtureTrees('dotnet-asm-');
  let root = '';
  const mcs = (args: string[]): void => void execFileSync('mcs', args, { cwd: root, stdio: 'pipe' });

  beforeAll(() => {
    root = trees.tree({
      'lib.cs': '[assembly: System.Reflection.AssemblyVersion("1.2.3.4")]\n[assembly: System.Reflection.AssemblyTitle("Tiny library")]\npublic static class Tiny { public static int Answer() { return 42; } }\n',
      'app.cs':
        '[assembly: System.Reflection.AssemblyVersion("2.0.0.0")]\n[assembly: System.Reflection.AssemblyInformationalVersion("2.0.7-beta.1+5e1f00d")]\n' +
        'public static class App { public static int Main() { return Tiny.Answer() == 42 ? 0 : 1; } }\n',
      'plain.cs': 'public static class Plain { }\n',
    });
    mcs(['-target:library', '-out:Tiny.dll', 'lib.cs']);
    mcs(['-target:exe', '-out:App.exe', '-r:Tiny.dll', 'app.cs']);
    mcs(['-target:library', '-platform:x64', '-out:Tiny64.dll', 'lib.cs']);
    mcs(['-target:library', '-out:Plain.dll', 'plain.cs']);
    mcs(['-target:library', '-out:policy.1.2.Tiny.dll', 'plain.cs']);
    // A damaged copy: the metadata signature (BSJB) overwritten.
    const data = readFileSync(join(root, 'Tiny.dll'));
    data.write('XXXX', data.indexOf('BSJB'), 'latin1');
    writeFileSync(join(root, 'Damaged.dll'), data);
  });
  afterAll(() => trees.cleanup());

  it('reads name, version and runtime from the Assembly table', async () => {
    const src = bufferSource(readFileSync(join(root, 'Tiny.dll')));
    expect(await readCliAssembly(src, await parsePe(src))).toEqual({ name: 'Tiny', version: '1.2.3.4', runtime: 'v4.0.30319', anyCpu: true });
    const x64 = bufferSource(readFileSync(join(root, 'Tiny64.dll')));
    expect((await readCliAssembly(x64, await parsePe(x64)))?.anyCpu).toBe(false);
  });

  it('lists each assembly as a NuGet package at its version, AnyCPU without an architecture', async () => {
    const ctx = await inventoryOfDirectory(root);
    const byName = new Map(ctx.components.map((c) => [c.name, c]));
    const tiny = byName.get('Tiny')!;
    expect(tiny.purl).toBe('pkg:nuget/Tiny@1.2.3.4');
    expect(tiny.version).toBe('1.2.3.4');
    expect(tiny.type).toBe('library');
    expect(tiny.architecture).toBeUndefined();
    expect(tiny.foundBy).toContain('pe-version');
    expect(tiny.evidence.some((e) => e.method === 'dotnet-assembly' && /Assembly Tiny, Version=1\.2\.3\.4/.test(e.match ?? ''))).toBe(true);
    const app = byName.get('App')!;
    expect(app.purl).toBe('pkg:nuget/App@2.0.7-beta.1');
    expect(app.type).toBe('application');
    // No AssemblyVersion: the assembly is listed without a version.
    expect(byName.get('Plain')?.version).toBeUndefined();
    expect(byName.get('Plain')?.purl).toBe('pkg:nuget/Plain');
    // A publisher policy assembly only redirects bindings.
    expect([...byName.keys()].filter((n) => n.startsWith('policy.'))).toEqual([]);
    // No generic product from the version resource (FileDescription 'Tiny library') beside the assembly: only the
    // damaged copy, whose metadata cannot be read, is named that way.
    const generic = ctx.components.filter((c) => (c.purl ?? '').startsWith('pkg:generic/'));
    expect(generic.map((c) => `${c.name}@${c.version} ${c.paths.map((p) => p.split('/').pop()).join(',')}`)).toEqual(['Tiny library@1.2.3.4 Damaged.dll']);
  });

  it('falls back to the version resource, with a warning, when the metadata is damaged', async () => {
    const ctx = await inventoryOfDirectory(root);
    const damaged = ctx.components.find((c) => c.paths.some((p) => p.endsWith('Damaged.dll')));
    expect(damaged?.evidence.map((e) => e.method)).toContain('pe-version-resource');
    expect(ctx.problems.some((p) => p.path?.endsWith('Damaged.dll') && /CLI metadata not read: no metadata signature/.test(p.message))).toBe(true);
  });

  it('merges an assembly with the *.deps.json record of the same package', async () => {
    const dir = trees.tree({
      'app/App.deps.json': JSON.stringify({ libraries: { 'Tiny/1.2.3.4': { type: 'package' } } }),
      'app/Tiny.dll': readFileSync(join(root, 'Tiny.dll')),
    });
    const ctx = await inventoryOfDirectory(dir);
    const tiny = ctx.components.filter((c) => c.name === 'Tiny');
    expect(tiny).toHaveLength(1);
    expect(tiny[0].evidence.map((e) => e.method).sort()).toEqual(['dotnet-assembly', 'dotnet-deps-json']);
  });
});
