// `firmscope unpack FILE -o DIR`: recursive extraction only, with a summary of what came out.
import { existsSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { parseByteSize, parseIntegerIn, UNPACK_LIMIT_RANGES, unpackLimits } from '../config.js';
import type { UnpackResult } from '../engine/unpack/driver.js';
import { DEFAULT_LIMITS, type Limits } from '../engine/unpack/limits.js';
import { putOtherThreadsBehindThisOne, ranInEngineThread } from './command-thread.js';

/** The limit flags shared by `unpack` and `scan`, as commander parses them. */
export interface LimitFlags {
  maxDepth?: number;
  maxBytes?: number;
  maxFiles?: number;
  timeout?: number;
}

function integerIn(min: number, max: number) {
  return (value: string): number => {
    const n = parseIntegerIn(value, min, max);
    if (n === undefined) throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
    return n;
  };
}

function byteSize(value: string): number {
  const n = parseByteSize(value);
  if (n === undefined) throw new InvalidArgumentError('expected a size in bytes, optionally with K, M, G or T (e.g. 512M, 4G)');
  return n;
}

function seconds(value: string): number {
  const n = Number(value);
  const { max } = UNPACK_LIMIT_RANGES.timeoutSeconds;
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || n <= 0 || n > max) throw new InvalidArgumentError(`expected a number of seconds above 0, at most ${max}`);
  return n;
}

/** Adds --max-depth, --max-bytes, --max-files and --timeout; each one validated, absent ones keep the engine's defaults. */
export function addLimitOptions(command: Command): Command {
  const r = UNPACK_LIMIT_RANGES;
  const d = DEFAULT_LIMITS;
  const ceiling = `${d.maxTotalBytesCeiling / 1024 ** 3}G`;
  return command
    .option('--max-depth <n>', `maximum nesting depth (${r.maxDepth.min}-${r.maxDepth.max}, default ${d.maxDepth})`, integerIn(r.maxDepth.min, r.maxDepth.max))
    .option('--max-bytes <size>', `maximum total bytes extracted, e.g. 512M or 4G (default ${d.expansionRatio}x the image size, at most ${ceiling})`, byteSize)
    .option('--max-files <n>', `maximum extracted entries (default ${d.maxFiles})`, integerIn(r.maxFiles.min, r.maxFiles.max))
    .option('--timeout <seconds>', `unpacking time limit for the whole image (default ${d.timeoutMs / 1000})`, seconds);
}

export function limitsFromFlags(flags: LimitFlags): Partial<Limits> {
  return unpackLimits({ maxDepth: flags.maxDepth, maxTotalBytes: flags.maxBytes, maxFiles: flags.maxFiles, timeoutSeconds: flags.timeout });
}

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
  const command = program
    .command('unpack')
    .description('Recursively extract a firmware image and print a summary')
    .argument('<file>', 'firmware image')
    .requiredOption('-o, --output <dir>', 'output folder (created when missing)');
  addLimitOptions(command).action(async (file: string, opts: LimitFlags & { output: string }) => {
    if (!existsSync(file)) throw new Error(`file not found: ${file}`);
    if (await ranInEngineThread(file)) return;
    await putOtherThreadsBehindThisOne();
    // Loaded on use: the CLI starts every command, and the handlers are only needed here.
    const { unpack } = await import('../engine/unpack/driver.js');
    const result = await unpack(file, opts.output, { limits: limitsFromFlags(opts) });
    process.stdout.write(summarize(result, opts.output));
  });
}
