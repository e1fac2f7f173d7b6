// `firmscope scan FILE --format json|cyclonedx|spdx|cbom|... [-o OUT]`: the whole offline analysis. The image
// is unpacked into a temporary work folder (removed afterwards unless --work-dir is given), and the ScanResult
// is written as JSON (its `files` array holds the extracted nodes) or through a registered report generator.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { VulnerabilitySource } from '../engine/vulns/source.js';
import { addLimitOptions, limitsFromFlags, type LimitFlags } from './unpack.js';

interface ScanCliOptions extends LimitFlags {
  format: string;
  output?: string;
  workDir?: string;
  quiet?: boolean;
  vulndb: boolean;
}

export function register(program: Command): void {
  const command = program
    .command('scan')
    .description('Analyse a firmware image offline and print the result or a report')
    .argument('<file>', 'firmware image')
    .option('-f, --format <format>', 'json, or the id or alias of a registered report (cyclonedx, spdx, cbom, ...)', 'json')
    .option('-o, --output <file>', 'write here instead of standard output')
    .option('--work-dir <dir>', 'unpack into this folder and keep it (default: a temporary folder, removed)')
    .option('-q, --quiet', 'no progress on standard error')
    .option('--no-vulndb', 'do not match components against the local vulnerability database');
  addLimitOptions(command).action(async (file: string, opts: ScanCliOptions) => {
    const { findReport, reports } = await import('../reports/index.js');
    const format = opts.format.toLowerCase();
    const generator = format === 'json' ? undefined : findReport(format);
    if (format !== 'json' && !generator) {
      throw new Error(`no report generator for format '${opts.format}' (available: json${reports.map((r) => `, ${r.id}`).join('')})`);
    }
    // The engine (handlers, analyzers) is loaded on use, so other commands start fast.
    const { scan } = await import('../engine/scan.js');
    const workDir = opts.workDir ?? (await mkdtemp(join(tmpdir(), 'firmscope-scan-')));
    const vulndb = opts.vulndb ? await openLocalVulnDb() : undefined;
    if (opts.vulndb && !vulndb && !opts.quiet) {
      process.stderr.write('firmscope: no local vulnerability database (see `firmscope vulndb import`); dependency vulnerabilities are not matched\n');
    }
    let lastPhase = '';
    try {
      const result = await scan(file, {
        workDir,
        vulnerabilities: vulndb?.source,
        limits: limitsFromFlags(opts),
        onProgress: ({ phase }) => {
          if (!opts.quiet && phase !== lastPhase) process.stderr.write(`firmscope: ${phase}\n`);
          lastPhase = phase;
        },
      });
      const output = generator ? await generator.generate({ result }) : JSON.stringify(result, null, 2) + '\n';
      if (opts.output) await writeFile(opts.output, output);
      else process.stdout.write(output);
    } finally {
      await vulndb?.close();
      if (!opts.workDir) await rm(workDir, { recursive: true, force: true });
    }
  });
}

/**
 * The service's vulnerability database (DATABASE_URL, or the SQLite file in FIRMSCOPE_DATA_DIR) when one exists;
 * an offline scan never creates one.
 */
async function openLocalVulnDb(): Promise<{ source: VulnerabilitySource; close(): Promise<void> } | undefined> {
  const { loadConfig } = await import('../config.js');
  const { openDatabase, sqlitePath } = await import('../store/database.js');
  const config = loadConfig();
  const isPostgres = config.databaseUrl !== undefined && /^postgres(ql)?:/i.test(config.databaseUrl);
  if (!isPostgres && !existsSync(sqlitePath(config.databaseUrl, config.dataDir))) return undefined;
  const { VulnerabilityRepository } = await import('../store/vulns.repository.js');
  const opened = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  return { source: new VulnerabilityRepository(opened.db), close: opened.close };
}
