import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { Command } from 'commander';
import { beforeEach, describe, expect, it } from 'vitest';
import { REPORT_IDS, register as registerScan } from '../../src/cli/scan.js';
import { reports } from '../../src/reports/index.js';
import { register as registerUnpack } from '../../src/cli/unpack.js';
import type { ScanResult } from '../../src/engine/types.js';
import { readFeeds } from '../../src/engine/vulns/feed-reader.js';
import { openDatabase } from '../../src/store/database.js';
import { VulnerabilityImporter } from '../../src/store/vulns-importer.js';
import { VulnerabilityReader } from '../../src/store/vulns-reader.js';
import { runCli, useCliFolder } from '../support/cli.js';
import { corpus, haveShared, sharedPath } from '../support/shared.js';

// `scan` consults the local vulnerability database of the data folder: useCliFolder keeps it inside the test's folder.
const folder = useCliFolder('fs-cli-');
let dir: string;
beforeEach(() => {
  dir = folder();
});

const cli = async (register: (p: Command) => void, args: string[]): Promise<string> => (await runCli(register, args)).stdout;

describe('firmscope unpack and scan', () => {
  it('unpack prints files, formats, unknown chunks and problems', async () => {
    const image = join(dir, 'fw.bin');
    const gz = zlib.gzipSync(Buffer.from('#!/bin/sh\necho firmware\n'.repeat(10)));
    await writeFile(image, Buffer.concat([Buffer.alloc(64, 0x11), gz]));
    const out = await cli(registerUnpack, ['unpack', image, '-o', join(dir, 'out')]);
    expect(out).toContain('files: 1 nodes (1 file)');
    expect(out).toContain('formats: gzip ×1');
    expect(out).toContain('unknown chunks: 1 (64 bytes)');
    expect(out).toContain('problems: 0');
    const nodes = JSON.parse(await readFile(join(dir, 'out', 'files.json'), 'utf8'));
    expect(nodes[1]).toMatchObject({ path: `fw.bin_extract/64-${64 + gz.length}.gzip/fw.bin`, type: 'script', format: 'gzip', offset: 64 });
  });

  it('scan --format json writes a ScanResult whose files are the nodes, and removes its work folder', async () => {
    const image = join(dir, 'fw.tar.gz');
    await writeFile(image, zlib.gzipSync(Buffer.from('plain text\n')));
    const output = join(dir, 'result.json');
    await cli(registerScan, ['scan', image, '--format', 'json', '-o', output, '-q']);
    const result = JSON.parse(await readFile(output, 'utf8')) as ScanResult;
    expect(result.image.fileName).toBe('fw.tar.gz');
    expect(result.files.map((f) => [f.path, f.fsPath, f.type])).toEqual([
      ['fw.tar.gz', '/fw.tar.gz', 'gzip'],
      ['fw.tar.gz_extract/fw.tar', '/fw.tar', 'text'],
    ]);
  });

  it('scan matches components against the local vulnerability database, and never creates one', async () => {
    if (!haveShared('corpus', 'dropbearStaticMipsel.tar.bz2') || !haveShared('vulndata', 'nvd-cve2.0-CVE-2012-0920.json')) return;
    const output = join(dir, 'result.json');
    await cli(registerScan, ['scan', corpus('dropbearStaticMipsel.tar.bz2'), '-o', output, '-q']);
    expect(existsSync(join(dir, 'data'))).toBe(false);
    const before = JSON.parse(await readFile(output, 'utf8')) as ScanResult;
    expect(before.findings.filter((f) => f.findingType === 'dependencyVulnerability')).toEqual([]);

    const opened = await openDatabase({ dataDir: join(dir, 'data') });
    await new VulnerabilityImporter(opened.db).importItems(readFeeds([sharedPath('vulndata', 'nvd-cve2.0-CVE-2012-0920.json')]));
    await opened.close();
    await cli(registerScan, ['scan', corpus('dropbearStaticMipsel.tar.bz2'), '-o', output, '-q']);
    const after = JSON.parse(await readFile(output, 'utf8')) as ScanResult;
    const cves = after.findings.filter((f) => f.findingType === 'dependencyVulnerability').map((f) => `${f.pname} ${f.component?.name}@${f.component?.version}`);
    expect(cves).toEqual(['CVE-2012-0920 dropbear@0.52']);
    // --no-vulndb skips the database.
    await cli(registerScan, ['scan', corpus('dropbearStaticMipsel.tar.bz2'), '-o', output, '-q', '--no-vulndb']);
    const skipped = JSON.parse(await readFile(output, 'utf8')) as ScanResult;
    expect(skipped.findings.filter((f) => f.findingType === 'dependencyVulnerability')).toEqual([]);
  });

  it('scan prints the full JSON on standard output with --output json, and only the summary with --output table', async () => {
    const image = join(dir, 'fw.tar.gz');
    await writeFile(image, zlib.gzipSync(Buffer.from('plain text\n')));
    const json = await cli(registerScan, ['scan', image, '--output', 'json', '-q', '--no-vulndb']);
    expect((JSON.parse(json) as ScanResult).image.fileName).toBe('fw.tar.gz');
    expect(existsSync('json')).toBe(false); // not a file named json in the working folder
    expect(await cli(registerScan, ['scan', image, '--output', 'table', '-q', '--no-vulndb'])).toBe('');
  });

  it('scan refuses a format that has no generator', async () => {
    const image = join(dir, 'x.bin');
    await writeFile(image, 'x');
    await expect(cli(registerScan, ['scan', image, '--format', 'no-such-report'])).rejects.toThrow(/no report generator for format 'no-such-report'/);
  });

  it('scan --help names every report generator and every alias', () => {
    expect([...REPORT_IDS].sort()).toEqual(reports.map((r) => r.id).sort());
    const program = new Command();
    registerScan(program);
    const help = program.commands.find((c) => c.name() === 'scan')!.helpInformation().replace(/\s+/g, ' ');
    for (const r of reports) for (const name of [r.id, ...r.aliases]) expect(help, name).toContain(name);
  });
});
