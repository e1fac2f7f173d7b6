// `firmscope scan FILE --format json|cyclonedx|spdx|cbom|... [-o OUT]`: the whole offline analysis. The image
// is unpacked into a temporary work folder (removed afterwards unless --work-dir is given), and the ScanResult
// is written as JSON (its `files` array holds the extracted nodes) or through a registered report generator.
// A one-screen summary goes to standard error; exit codes: 1 when the image cannot be analysed at all (nothing
// recognised, the disk full: the engine's reason is printed), 3 with --fail-on-incomplete when part of the image
// could not be analysed. Analysis results are kept in a local cache (--no-cache, --cache-dir): a rescan of the
// same image, or of the next version of a firmware, reuses them (engine/analysis-cache.ts).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Command } from 'commander';
import type { AnalysisCache } from '../engine/analysis-cache.js';
import type { LocalFileStore } from '../engine/unpack/file-store.js';
import { SEVERITIES, type ScanResult } from '../engine/types.js';
import type { VulnerabilitySource } from '../engine/vulns/source.js';
import { checkGateOptions, EXIT, EXIT_CODES_HELP, failingFindings, gateSummary, type GateRow } from './remote/gate.js';
import { addLimitOptions, limitsFromFlags, type LimitFlags } from './unpack.js';
import { imageHashesFromParent, putOtherThreadsBehindThisOne, ranInEngineThread } from './command-thread.js';

interface ScanCliOptions extends LimitFlags {
  format?: string;
  output?: string;
  workDir?: string;
  quiet?: boolean;
  vulndb: boolean;
  failOnIncomplete?: boolean;
  debugFile: string[];
  /** false with --no-cache */
  cache: boolean;
  cacheDir?: string;
  failOn?: string;
  failOnKev?: boolean;
}

/**
 * The report generators' ids, for the help text: written out so that `--help` does not load the generators
 * (test/cli/unpack-scan.test.ts checks it against reports/index.ts).
 */
export const REPORT_IDS = ['findings-json', 'findings-csv', 'findings-pdf', 'findings-html', 'sbom-cyclonedx', 'sbom-cyclonedx-xml', 'sbom-spdx',
  'cbom-cyclonedx', 'pqc-json', 'pqc-pdf', 'vex-openvex', 'vex-cyclonedx', 'sarif'];

/** Exit code of a scan whose analysis is incomplete, with --fail-on-incomplete. */
export const EXIT_INCOMPLETE = 3;

export function register(program: Command): void {
  const command = program
    .command('scan')
    .description('Analyse a firmware image offline and print the result or a report')
    .argument('<file>', 'firmware image')
    .option('-f, --format <format>', `json (the whole result), or a report: ${REPORT_IDS.join(', ')} (aliases: findings, cyclonedx, cyclonedx-json, cyclonedx-xml, spdx, spdx-json, cbom, pqc, openvex, cyclonedx-vex); written to standard output unless -o`)
    .option('-o, --output <file|json|table>', 'write the result (JSON unless -f) to this file; `json`: the full JSON on standard output; `table`: the summary only (the default without -o or -f)')
    .option('--work-dir <dir>', 'unpack into this folder and keep it (default: a temporary folder, removed); an image found in the analysis cache is not unpacked: add --no-cache to get its files')
    .option('-q, --quiet', 'no progress and no summary on standard error (an incomplete analysis is still reported)')
    .option('--fail-on <severity>', `exit with code ${EXIT.gateFailed} when a finding is at or above this severity (critical, high, medium, low); kernel CVEs whose code is not built never fail`)
    .option('--fail-on-kev', `exit with code ${EXIT.gateFailed} when a finding is in CISA's Known Exploited Vulnerabilities catalogue`)
    .option('--fail-on-incomplete', `exit with code ${EXIT_INCOMPLETE} when part of the image could not be analysed`)
    .option('--no-vulndb', 'do not match components against the local vulnerability database')
    .option('--no-cache', 'neither reuse nor keep analysis results (default: kept in $XDG_CACHE_HOME/firmscope, else ~/.cache/firmscope)')
    .option('--cache-dir <dir>', 'keep the analysis cache (and the extracted files the next version of an image reuses) in this folder')
    .option('--debug-file <file>', 'a PDB or ELF debug file whose symbols name the functions of a stripped binary (repeatable)', (file: string, all: string[]) => [...all, file], [] as string[]);
  command.addHelpText('after', `${EXIT_CODES_HELP}\n(--fail-on-new needs a server that keeps the previous image: see \`firmscope upload --wait\`.)`);
  addLimitOptions(command).action(async (file: string, opts: ScanCliOptions) => {
    checkGateOptions(opts);
    if (!existsSync(file)) throw new Error(`file not found: ${file}`);
    if (await ranInEngineThread(file, { hashImage: true })) return;
    await putOtherThreadsBehindThisOne();
    // The rule thread's start (a thread, the built-in rules' gates read: 0.1-0.2 s of its CPU) goes on beside
    // the engine's loading, instead of after the scan's start (the whole wait of a small image's malicious-code stage).
    const { prepareRuleThread } = await import('../engine/malware/rule-scanner.js');
    prepareRuleThread();
    const format = (opts.format ?? 'json').toLowerCase();
    // The report generators (PDF fonts, CycloneDX, CSV: dozens of modules) are loaded only for a report format.
    const generator = format === 'json' ? undefined : await findGenerator(format);
    // The engine (handlers, analyzers) is loaded on use, so other commands start fast.
    const { scan } = await import('../engine/scan.js');
    const { isEngineError } = await import('../engine/errors.js');
    const debugFiles = opts.debugFile.map((path) => {
      if (!existsSync(path)) throw new Error(`debug file not found: ${path}`);
      return { path, name: basename(path) };
    });
    const workDir = opts.workDir ?? (await mkdtemp(join(tmpdir(), 'firmscope-scan-')));
    const vulndb = opts.vulndb ? await openLocalVulnDb() : undefined;
    if (opts.vulndb && !vulndb && !opts.quiet) {
      process.stderr.write('firmscope: no local vulnerability database (see `firmscope vulndb import`); dependency vulnerabilities are not matched\n');
    }
    let lastPhase = '';
    const cache = opts.cache ? await openLocalCache(opts.cacheDir) : undefined;
    try {
      const result = await scan(file, {
        workDir,
        imageHashes: imageHashesFromParent(file),
        analysisCache: cache?.cache,
        fileStore: cache?.files,
        vulnerabilities: vulndb?.source,
        limits: limitsFromFlags(opts),
        debugFiles,
        onProgress: ({ phase }) => {
          if (!opts.quiet && phase !== lastPhase) process.stderr.write(`firmscope: ${phase}\n`);
          lastPhase = phase;
        },
      });
      // The full result (hundreds of kB) only when asked for: -o FILE, --output json or -f FORMAT; otherwise the
      // summary alone. `json` and `table` are the output words of the other commands, not file names.
      const word = opts.output === 'json' || opts.output === 'table' ? opts.output : undefined;
      const outputFile = word ? undefined : opts.output;
      const wanted = outputFile !== undefined || word === 'json' || (opts.format !== undefined && word !== 'table');
      const output = !wanted ? undefined : generator ? await generator.generate({ result }) : JSON.stringify(result, null, 2) + '\n';
      if (outputFile && output !== undefined) await writeFile(outputFile, output);
      else if (output !== undefined) process.stdout.write(output);
      else if (!opts.quiet && word !== 'table') process.stderr.write('firmscope: the full result: -o FILE (JSON), --output json, or -f json|<report> for standard output\n');
      const incomplete = incompleteLines(result);
      process.stderr.write(!opts.quiet ? summaryLines(result) : incomplete ? `firmscope: ${incomplete.trimStart()}` : '');
      if (opts.failOnIncomplete && result.summary?.complete === false) process.exitCode = EXIT_INCOMPLETE;
      // A failed gate wins over an incomplete analysis (as for the server commands).
      const failing = failingFindings(result.findings.map(gateRow), opts);
      if (failing.length > 0) {
        process.stderr.write(gateSummary(failing, opts));
        process.exitCode = EXIT.gateFailed;
      }
    } catch (error) {
      // The engine's own refusals (nothing recognised, the disk full) are answers, not crashes: said plainly.
      if (!isEngineError(error)) throw error;
      process.stderr.write(`firmscope: ${error.message}\n`);
      process.exitCode = 1;
    } finally {
      await vulndb?.close();
      await cache?.close();
      if (!opts.workDir) await rm(workDir, { recursive: true, force: true });
      cache?.files.trim(); // within the cache's cap, oldest files first; after the scan, which linked from it
    }
  });
}

/** An engine finding as the gates see it: a kernel CVE whose code is not built counts as rejected. */
function gateRow(f: ScanResult['findings'][number]): GateRow {
  return {
    id: f.fingerprint, pname: f.pname, name: f.name, severity: f.severity, isKev: f.isKev === true,
    issueStatus: f.applicability?.verdict === 'not-applicable' ? 'rejected' : 'new',
    componentName: f.component?.name, componentVersion: f.component?.version,
  };
}

/** The summary printed on standard error: what was found, what went wrong, and whether the analysis is complete. */
export function summaryLines(result: ScanResult): string {
  const { summary, image } = result;
  const lines = [`firmscope: ${image.fileName} (${image.type}, ${image.size} bytes)`];
  if (summary) {
    const formats = Object.entries(summary.formats).sort(([a], [b]) => a.localeCompare(b)).map(([id, n]) => `${id} ×${n}`);
    lines.push(`  files: ${summary.filesExtracted} extracted (${summary.bytesExtracted} bytes)`);
    lines.push(`  formats: ${formats.length ? formats.join(', ') : 'none'} (${(summary.coverage * 100).toFixed(1)}% of the image)`);
  }
  lines.push(`  components: ${result.components.length}`);
  const bySeverity = SEVERITIES.map((s) => `${s} ${result.findings.filter((f) => f.severity === s).length}`);
  lines.push(`  findings: ${result.findings.length} (${bySeverity.join(', ')})`);
  const triage = summary?.kernelTriage;
  if (triage) {
    const removed = Object.entries(triage.removedByRule).map(([rule, n]) => `${rule} ${n}`).join(', ');
    lines.push(`  kernel triage: ${triage.applicable} applicable, ${triage['not-applicable']} not applicable${removed ? ` (${removed})` : ''}, ${triage.unknown} unknown`);
  }
  lines.push(`  crypto assets: ${result.cryptoAssets.length}`);
  const cache = summary?.cache;
  if (cache) lines.push(cache.image === 'hit' ? '  analysis cache: the image was analysed before; its results reused' : `  analysis cache: ${cache.filesReused} file results reused, ${cache.filesAnalysed} analysed`);
  if (summary) {
    const { error, warning, info } = summary.problems;
    lines.push(`  problems: ${error} error, ${warning} warning, ${info} info`);
    lines.push(summary.complete ? '  analysis complete' : incompleteLines(result).trimEnd());
  }
  return lines.join('\n') + '\n';
}

/** "analysis incomplete: …" with one reason a line; empty when complete. */
function incompleteLines(result: ScanResult): string {
  const summary = result.summary;
  if (!summary || summary.complete) return '';
  const [first, ...more] = summary.incompleteReasons;
  return [`  analysis incomplete: ${first ?? 'see the problems'}`, ...more.map((r) => `    ${r}`)].join('\n') + '\n';
}

async function findGenerator(format: string) {
  const { findReport, reports } = await import('../reports/index.js');
  const generator = findReport(format);
  if (!generator) throw new Error(`no report generator for format '${format}' (available: json${reports.map((r) => `, ${r.id}`).join('')})`);
  return generator;
}

/**
 * The analysis cache of `firmscope scan` (engine/analysis-cache.ts): a SQLite file in the user's cache folder (or
 * `dir`), holding only the analysis_cache tables, as the service's store writes them for one organisation.
 */
async function openLocalCache(dir: string | undefined): Promise<{ cache: AnalysisCache; files: LocalFileStore; close(): Promise<void> } | undefined> {
  const { localAnalysisCache } = await import('../config.js');
  const settings = localAnalysisCache();
  if (settings.maxBytes === 0) return undefined;
  const folder = dir ?? settings.dir;
  await mkdir(folder, { recursive: true });
  const { openDatabase } = await import('../store/database.js');
  const { AnalysisCacheRepository } = await import('../store/analysis-cache.repository.js');
  const migration = await import('../store/migrations/0016-analysis-cache.js');
  const usage = await import('../store/migrations/0018-analysis-cache-usage.js');
  const migrations: Array<[string, typeof migration]> = [['0016-analysis-cache', migration], ['0018-analysis-cache-usage', usage]];
  const opened = await openDatabase({ url: `sqlite:${join(folder, 'analysis-cache.db')}`, dataDir: folder, migrations });
  // the extracted files the next version of an image reuses (file-store.ts), beside the analysis results
  const { LocalFileStore } = await import('../engine/unpack/file-store.js');
  return { cache: new AnalysisCacheRepository(opened.db, 'local', settings.maxBytes), files: new LocalFileStore(join(folder, 'files'), settings.maxBytes), close: opened.close };
}

/**
 * The service's vulnerability database (DATABASE_URL, or the SQLite file in FIRMSCOPE_DATA_DIR) when one exists;
 * an offline scan never creates one.
 */
async function openLocalVulnDb(): Promise<{ source: VulnerabilitySource; close(): Promise<void> } | undefined> {
  const { loadConfig } = await import('../config.js');
  const { sqlitePath } = await import('../store/sqlite-path.js');
  const config = loadConfig();
  const isPostgres = config.databaseUrl !== undefined && /^postgres(ql)?:/i.test(config.databaseUrl);
  if (!isPostgres && !existsSync(sqlitePath(config.databaseUrl, config.dataDir))) return undefined;
  const { openDatabase } = await import('../store/database.js');
  const { VulnerabilityReader } = await import('../store/vulns-reader.js');
  const opened = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  return { source: new VulnerabilityReader(opened.db), close: opened.close };
}
