// `firmscope findings --image I [--product P] [--severity high] [--type …] [--compare BASELINE] [--output …]`
// with the CI gates (--fail-on, --fail-on-new, --fail-on-kev, --fail-on-incomplete).
import type { Command } from 'commander';
import { findImage } from './remote/api.js';
import { checkGateOptions, EXIT_CODES_HELP, type GateOptions } from './remote/gate.js';
import { comparedFindings, gateOptions, imageFindings, runGates, type FindingRow } from './remote/findings.js';
import { colourSeverity, outputFormat, printJson, printRows } from './remote/output.js';
import { fetchReport } from './remote/reports.js';
import { connect, connectionOptions, type ConnectionFlags } from './remote/session.js';
import { imageComplete } from './remote/scan-wait.js';

interface FindingsOptions extends ConnectionFlags, GateOptions {
  image: string;
  product?: string;
  severity?: string;
  type?: string;
  compare?: string;
  output?: string;
  failOnIncomplete?: boolean;
}

const list = (value: string | undefined) => value?.split(',').map((v) => v.trim()).filter(Boolean);

export function register(program: Command): void {
  const command = connectionOptions(program.command('findings')
    .description('The findings of an image: a table on a terminal, tab-separated lines otherwise, JSON or SARIF with --output')
    .requiredOption('--image <image>', 'image id or name')
    .option('--product <product>', 'the product of the image (id or name), when image names repeat')
    .option('--severity <list>', 'only these severities (comma-separated: critical,high,medium,low,informational)')
    .option('--type <list>', 'only these types (knownVulnerability, dependencyVulnerability, maliciousCode)')
    .option('--compare <baseline>', 'compare with this image (id or name): each finding is new, resolved or unchanged')
    .option('--output <format>', 'table, json or sarif (default: table on a terminal, tab-separated lines otherwise)'));
  gateOptions(command).addHelpText('after', EXIT_CODES_HELP).action(async (options: FindingsOptions) => {
    checkGateOptions(options);
    const format = outputFormat(options.output, ['table', 'json', 'sarif']);
    const { client } = await connect(options);
    const image = await findImage(client, options.image, options.product);
    const query = { severity: list(options.severity), type: list(options.type) };
    if (format === 'sarif') {
      process.stdout.write((await fetchReport(client, image, 'sarif')).bytes);
    } else {
      const baseline = options.compare ? await findImage(client, options.compare, options.product ?? image.productId) : undefined;
      const rows = baseline ? await comparedFindings(client, baseline.id, image.id, query) : await imageFindings(client, image.id, query);
      if (format === 'json') printJson(rows);
      else printFindings(rows, format, Boolean(baseline));
    }
    process.exitCode = await runGates(client, image, options, await imageComplete(client, image));
  });
}

function printFindings(rows: FindingRow[], format: string, compared: boolean): void {
  const columns = ['severity', 'id', 'type', 'component', 'cvss', 'kev', 'status', ...(compared ? ['comparison'] : [])];
  printRows(columns, rows.map((r) => [
    r.severity, r.pname, r.findingType, r.componentName ? `${r.componentName}${r.componentVersion ? ` ${r.componentVersion}` : ''}` : r.name,
    r.cvssLatestBaseScore?.toFixed(1), r.isKev ? 'KEV' : '', r.issueStatus, ...(compared ? [r.comparison?.status] : []),
  ]), format, (column, value) => (column === 'severity' ? colourSeverity(value) : value));
}
