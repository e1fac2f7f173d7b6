// `firmscope rules list|add|enable|disable|delete`: the organisation's malware rules (built-in and custom YARA-X).
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { data } from './remote/api.js';
import { outputFormat, printJson, printRows } from './remote/output.js';
import { CliError, connect, connectionOptions, type ConnectionFlags } from './remote/session.js';

export function register(program: Command): void {
  const rules = program.command('rules').description('Malware rules of your organisation: built-in and custom YARA-X');
  connectionOptions(rules.command('list').description('List the rules').option('--custom', 'only custom rules').option('--output <format>', 'table or json'))
    .action(async (options: ConnectionFlags & { custom?: boolean; output?: string }) => {
      const { client } = await connect(options);
      const format = outputFormat(options.output);
      const list = data(await client.GET('/api/v4/rules')).rules.filter((r) => !options.custom || !r.builtIn);
      if (format === 'json') return printJson(list);
      printRows(['id', 'name', 'kind', 'enabled', 'severity'], list.map((r) => [r.id, r.name, r.builtIn ? 'built-in' : 'custom', r.enabled ? 'yes' : 'no', r.severity]), format);
    });
  connectionOptions(rules.command('add').description('Add a custom rule from a YARA-X source file; prints its id')
    .argument('<file>', 'YARA-X source').requiredOption('--name <name>', 'a name for the source').option('--disabled', 'add it disabled'))
    .action(async (file: string, options: ConnectionFlags & { name: string; disabled?: boolean }) => {
      const source = await readFile(file, 'utf8').catch(() => { throw new CliError(`rule file not found: ${file}`); });
      const { client } = await connect(options);
      const rule = data(await client.POST('/api/v4/rules', { body: { name: options.name, source, enabled: !options.disabled } }));
      for (const warning of rule.warnings ?? []) process.stderr.write(`firmscope: warning: ${warning}\n`);
      process.stdout.write(`${rule.id}\n`);
    });
  for (const [verb, enabled] of [['enable', true], ['disable', false]] as const) {
    connectionOptions(rules.command(verb).description(`${verb === 'enable' ? 'Enable' : 'Disable'} a rule for the next scans`).argument('<id>'))
      .action(async (ruleId: string, options: ConnectionFlags) => {
        const { client } = await connect(options);
        data(await client.PATCH('/api/v4/rules/{ruleId}', { params: { path: { ruleId } }, body: { enabled } }));
      });
  }
  connectionOptions(rules.command('delete').description('Delete a custom rule').argument('<id>'))
    .action(async (ruleId: string, options: ConnectionFlags) => {
      const { client } = await connect(options);
      data(await client.DELETE('/api/v4/rules/{ruleId}', { params: { path: { ruleId } } }));
    });
}
