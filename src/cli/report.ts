// `firmscope report --image I --type T [--format F] [-o FILE]`: a report of the image's latest completed scan.
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { findImage } from './remote/api.js';
import { fetchReport, REPORT_TYPES, REPORT_TYPES_HELP } from './remote/reports.js';
import { connect, connectionOptions, type ConnectionFlags } from './remote/session.js';

export function register(program: Command): void {
  connectionOptions(program.command('report')
    .description('Download a report of an image')
    .requiredOption('--image <image>', 'image id or name')
    .option('--product <product>', 'the product of the image (id or name)')
    .requiredOption('--type <type>', `report type: ${Object.keys(REPORT_TYPES).join(', ')}`)
    .option('--format <format>', `the format, by type: ${REPORT_TYPES_HELP}`)
    .option('-o, --output <file>', 'write here instead of standard output'))
    .action(async (options: ConnectionFlags & { image: string; product?: string; type: string; format?: string; output?: string }) => {
      const { client } = await connect(options);
      const image = await findImage(client, options.image, options.product);
      const { bytes } = await fetchReport(client, image, options.type, options.format);
      if (options.output) {
        await writeFile(options.output, bytes);
        process.stderr.write(`firmscope: wrote ${options.output} (${bytes.length} bytes)\n`);
      } else {
        process.stdout.write(bytes);
      }
    });
}
