// What an image starts at boot: the lines of inittab, of rc scripts (/etc/init.d, /etc/init0.d, /etc/rc.d, rcS,
// rc.local), of inetd.conf and the ExecStart lines of enabled systemd units (linked from a .wants folder under
// /etc/systemd/system or /lib/systemd/system), and the simple commands on a shell line, so rules can ask "is telnetd started,
// and with which arguments" without each parsing shell. Conditions are not evaluated: a daemon started in any
// branch of a boot script counts as started, and the evidence shows the line.
import { posix } from 'node:path';
import type { FileNode } from '../types.js';
import type { WeaknessContext } from './rule.js';

export interface StartupLine {
  node: FileNode;
  /** 1-based line number (the first line of a continued line). */
  line: number;
  text: string;
  kind: 'inittab' | 'script' | 'inetd' | 'systemd';
}

export interface InittabEntry {
  id: string;
  action: string;
  process: string;
}

const STARTUP_GLOBS = [
  '**/etc/init*.d/**', '**/etc/rc.d/**', '**/etc/rc[0-9S].d/**', '**/etc/rcS', '**/etc/rc.local', '**/etc/rc.sysinit', '**/etc/rc',
];
const MAX_SIZE = 256 * 1024;

export const SHELLS = new Set(['sh', 'ash', 'bash', 'hush', 'msh', 'dash', 'ksh', 'mksh', 'zsh']);

async function linesOf(ctx: WeaknessContext, node: FileNode, kind: StartupLine['kind']): Promise<StartupLine[]> {
  const text = await ctx.text(node, MAX_SIZE);
  if (text === undefined) return [];
  const out: StartupLine[] = [];
  let pending: { line: number; text: string } | undefined;
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.replace(/\r$/, '');
    const joined = pending ? { line: pending.line, text: pending.text + line } : { line: i + 1, text: line };
    if (kind === 'script' && joined.text.endsWith('\\')) {
      pending = { line: joined.line, text: joined.text.slice(0, -1) + ' ' };
      continue;
    }
    pending = undefined;
    const trimmed = joined.text.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    out.push({ node, line: joined.line, text: joined.text, kind });
  }
  return out;
}

/**
 * One analyzer run's startup lines, keyed by its `text` reader: that reader is made once per run and shared by
 * every rule, so the rules asking (telnet, debug services, console, telnetd accounts) glob and split once.
 */
const linesOfRun = new WeakMap<WeaknessContext['text'], Promise<readonly StartupLine[]>>();

/** Every non-comment line of the image's startup files (computed once per analyzer run). */
export function startupLines(ctx: WeaknessContext): Promise<readonly StartupLine[]> {
  let lines = linesOfRun.get(ctx.text);
  if (!lines) {
    lines = readStartupLines(ctx);
    linesOfRun.set(ctx.text, lines);
  }
  return lines;
}

async function readStartupLines(ctx: WeaknessContext): Promise<StartupLine[]> {
  const out: StartupLine[] = [];
  for (const node of ctx.index.glob('**/etc/inittab')) out.push(...(await linesOf(ctx, node, 'inittab')));
  for (const node of ctx.index.glob('**/etc/inetd.conf')) out.push(...(await linesOf(ctx, node, 'inetd')));
  const scripts = ctx.index.glob(...STARTUP_GLOBS).filter((n) => n.size > 0);
  for (const node of scripts) out.push(...(await linesOf(ctx, node, 'script')));
  for (const unit of enabledUnits(ctx)) {
    for (const line of await linesOf(ctx, unit, 'systemd')) if (/^\s*ExecStart(?:Pre|Post)?=/.test(line.text)) out.push(line);
  }
  return out;
}

/** Unit files that a `.wants` folder links to (enabled units), each once. */
function enabledUnits(ctx: WeaknessContext): FileNode[] {
  const units = new Map<string, FileNode>();
  const wants = /\/(?:etc|lib|usr\/lib)\/systemd\/system\/[^/]+\.wants\/[^/]+\.service$/;
  for (const node of ctx.index.nodes) {
    if (!wants.test(node.fsPath)) continue;
    const unit = node.kind === 'file' ? node : ctx.index.resolveLink(node);
    if (unit) units.set(unit.path, unit);
  }
  return [...units.values()];
}

/** An inittab line: busybox `tty::action:process` or System V `id:runlevels:action:process`. */
export function parseInittab(text: string): InittabEntry | undefined {
  const m = /^([^:]*):([^:]*):([^:]*):(.*)$/.exec(text.trim());
  if (!m) return undefined;
  return { id: m[1]!, action: m[3]!.trim(), process: m[4]!.trim() };
}

/** Splits a shell line into words, honouring quotes; operators (; && || | &) are their own words; # starts a comment. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let started = false;
  let quote: string | undefined;
  const flush = (): void => {
    if (started) words.push(word);
    word = '';
    started = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else word += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      started = true;
    } else if (c === '#' && !started) {
      break;
    } else if (/\s/.test(c)) {
      flush();
    } else if (c === ';' || c === '&' || c === '|') {
      flush();
      const two = line.slice(i, i + 2);
      words.push(two === '&&' || two === '||' ? two : c);
      if (two === '&&' || two === '||') i++;
    } else {
      word += c;
      started = true;
    }
  }
  flush();
  return words;
}

const OPERATORS = new Set([';', '&', '|', '&&', '||']);
const PREFIXES = new Set(['if', 'then', 'do', 'else', 'elif', 'while', 'until', '!', '{', '(', 'exec', 'nohup', 'command', 'time', 'env', 'busybox']);

export interface Command {
  /** Base name of the program, without a leading '-' (login shells) or path. */
  program: string;
  args: string[];
}

/** The programs a shell line runs, with their arguments (wrappers such as exec, nohup, busybox, procd and start-stop-daemon unwrapped). */
export function commandsOf(line: string): Command[] {
  const out: Command[] = [];
  let current: string[] = [];
  const finish = (): void => {
    let words = current;
    current = [];
    // Keywords, wrappers, variable assignments and case labels (`start)`) before the program.
    while (words.length && (PREFIXES.has(words[0]!) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!) || /^[^()]+\)$/.test(words[0]!))) words = words.slice(1);
    if (words[0] === 'procd_set_param' && words[1] === 'command') words = words.slice(2);
    else if (words[0] === 'service_start') words = words.slice(1);
    else if (words[0] && posix.basename(words[0]) === 'start-stop-daemon') {
      const at = words.findIndex((w) => w === '-x' || w === '--exec' || w === '-a' || w === '--startas');
      const rest = words.indexOf('--');
      words = at >= 0 ? [words[at + 1] ?? '', ...(rest >= 0 ? words.slice(rest + 1) : [])] : [];
    }
    if (words[0] && posix.basename(words[0]) === 'busybox') words = words.slice(1);
    if (!words.length || !words[0]) return;
    out.push({ program: posix.basename(words[0].replace(/^-/, '')), args: words.slice(1) });
  };
  for (const word of shellWords(line)) {
    if (OPERATORS.has(word)) finish();
    else current.push(word);
  }
  finish();
  return out;
}

/** The program an inittab or shell line starts, as commands (inittab's process field is a shell command line). */
export function commandsOfStartupLine(line: StartupLine): Command[] {
  if (line.kind === 'inittab') {
    const entry = parseInittab(line.text);
    return entry ? commandsOf(entry.process) : [];
  }
  if (line.kind === 'systemd') {
    // ExecStart=[-@:+!]/usr/sbin/telnetd -F: the prefixes change how systemd runs the program, not which.
    return commandsOf(line.text.replace(/^\s*ExecStart(?:Pre|Post)?=[-@:+!]*/, ''));
  }
  if (line.kind === 'inetd') {
    // service socket-type protocol wait user server-program [args: argv0 ...]
    const fields = line.text.trim().split(/\s+/);
    if (fields.length < 6) return [];
    return [{ program: posix.basename(fields[5]!), args: fields.slice(7) }];
  }
  return commandsOf(line.text);
}

/** The value after option `flag` ('-l /bin/sh' or '-l/bin/sh'), if present. */
export function optionValue(args: readonly string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === flag) return args[i + 1];
    if (args[i]!.startsWith(flag) && args[i]!.length > flag.length && !args[i]!.startsWith('--')) return args[i]!.slice(flag.length);
  }
  return undefined;
}

/** True when `program args` is an interactive shell (no script or -c command to run). */
export function isInteractiveShell(program: string, args: readonly string[]): boolean {
  if (!SHELLS.has(program)) return false;
  return args.every((a) => a === '-l' || a === '--login' || a === '-i' || a === '-');
}

/** The node at `fsPath` in the same filesystem as `beside` (a script an inittab entry runs). */
export function sameFilesystem(ctx: WeaknessContext, beside: FileNode, fsPath: string): FileNode | undefined {
  const prefix = beside.path.slice(0, beside.path.length - beside.fsPath.length + 1);
  const node = ctx.index.get(prefix + posix.normalize(fsPath).replace(/^\/+/, ''));
  if (!node) return undefined;
  return node.kind === 'file' ? node : ctx.index.resolveLink(node);
}
