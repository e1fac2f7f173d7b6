// `firmscope unpack FILE -o DIR`: recursive extraction only, with a summary of what came out.
import type { Command } from 'commander';
import type { UnpackResult } from '../engine/unpack/driver.js';

export function summarize(result: UnpackResult, outDir: string): string {
  const kinds = new Map<string, number>();
  for (const f of result.files.slice(1)) kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);
  const formats = Object.entries(result.stats.formats)
    .sort((a, b) => b[1] - a[1])
    .map(([id, n]) => `${id} ×${n}`);
  const unknownBytes = result.unknownChunks.reduce((sum, c) => sum + c.size, 0);
  const lines = [
    `extracted to ${outDir} (node tree in files.json)`,
    `files: ${result.stats.filesExtracted} nodes (${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ') || 'none'}), ${result.stats.bytesExtracted} bytes, ${result.stats.durationMs} ms`,
    `formats: ${formats.join(', ') || 'none recognised'}`,
    `unknown chunks: ${result.unknownChunks.length} (${unknownBytes} bytes)`,
    `problems: ${result.problems.length}`,
  ];
  for (const p of result.problems.slice(0, 50)) {
    lines.push(`  [${p.kind}] ${p.source}${p.path ? ` ${p.path}` : ''}${p.offset !== undefined ? `@${p.offset}` : ''}: ${p.message}`);
  }
  if (result.problems.length > 50) lines.push(`  ... ${result.problems.length - 50} more in the result`);
  return lines.join('\n') + '\n';
}

export function register(program: Command): void {
  program
    .command('unpack')
    .description('Recursively extract a firmware image and print a summary')
    .argument('<file>', 'firmware image')
    .requiredOption('-o, --output <dir>', 'output folder (created when missing)')
    .option('--max-depth <n>', 'maximum nesting depth', (v) => Number.parseInt(v, 10))
    .option('--timeout <seconds>', 'time limit for the whole image', (v) => Number.parseFloat(v))
    .action(async (file: string, opts: { output: string; maxDepth?: number; timeout?: number }) => {
      const limits = {
        ...(opts.maxDepth !== undefined ? { maxDepth: opts.maxDepth } : {}),
        ...(opts.timeout !== undefined ? { timeoutMs: opts.timeout * 1000 } : {}),
      };
      // Loaded on use: the CLI starts every command, and the handlers are only needed here.
      const { unpack } = await import('../engine/unpack/driver.js');
      const result = await unpack(file, opts.output, { limits });
      process.stdout.write(summarize(result, opts.output));
    });
}
