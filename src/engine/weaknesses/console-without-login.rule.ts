// A root shell on the console with no login: an inittab entry that runs a shell (`::respawn:/bin/sh`,
// `ttyS0::askfirst:-/bin/sh`), a getty told to skip the login (`getty -n -l /bin/sh`), `login -f root`, or a
// script that execs a shell (OpenWrt's `::askconsole:/usr/libexec/login.sh` execs `/bin/ash --login` unless
// ttylogin is set), or busybox init running its built-in table (no /etc/inittab). Anyone with the serial port
// (UART pads on the board) is root. Severity medium: it needs physical access. CWE-306 (missing authentication
// for a critical function).
import { lineEvidence, weaknessFinding } from './finding.js';
import type { WeaknessContext, WeaknessRule } from './rule.js';
import { SHELLS, commandsOf, isInteractiveShell, optionValue, parseInittab, sameFilesystem, startupLines, type Command, type StartupLine } from './startup.js';
import type { EngineFinding, FindingOccurrence } from '../types.js';

// Actions that give a terminal to a process (busybox init and System V init).
const CONSOLE_ACTIONS = new Set(['respawn', 'askfirst', 'askconsole', 'once', 'wait', 'boot', 'bootwait']);
const GETTYS = new Set(['getty', 'agetty', 'mingetty', 'mgetty']);

function directShell(command: Command): boolean {
  if (isInteractiveShell(command.program, command.args)) return true;
  if (GETTYS.has(command.program)) {
    const login = optionValue(command.args, '-l');
    return command.args.includes('-n') && login !== undefined && SHELLS.has(login.split('/').pop()!);
  }
  return command.program === 'login' && command.args.includes('-f');
}

/** Lines of a script that exec an interactive shell (at most one level deep: the script an inittab entry runs). */
async function scriptShellLines(ctx: WeaknessContext, ref: StartupLine, path: string): Promise<FindingOccurrence[]> {
  const node = sameFilesystem(ctx, ref.node, path);
  const text = node ? await ctx.text(node, 64 * 1024) : undefined;
  if (!node || text === undefined) return [];
  const out: FindingOccurrence[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    // Only an exec replaces the script with the shell; a shell merely mentioned is not given to the console.
    if (/^\s*#/.test(line) || !/\bexec\s/.test(line)) continue;
    if (commandsOf(line).some((c) => isInteractiveShell(c.program, c.args))) {
      out.push({ path: node.path, evidence: lineEvidence(node.fsPath, i + 1, line) });
    }
  }
  return out;
}

const ASKFIRST_PROMPT = 'Please press Enter to activate this console.';

/**
 * Busybox init with no /etc/inittab runs its built-in table, which has `::askfirst:-/bin/sh` on the console
 * (busybox examples/inittab). Reported when /sbin/init is busybox, the filesystem has no inittab, and the
 * binary carries the askfirst prompt (so its init applet can start that shell).
 */
async function busyboxDefaultInit(ctx: WeaknessContext): Promise<EngineFinding[]> {
  const findings: EngineFinding[] = [];
  for (const init of ctx.index.byFilesystemPath('/sbin/init')) {
    const binary = init.kind === 'file' ? init : ctx.index.resolveLink(init);
    if (!binary || !binary.fsPath.endsWith('/busybox') || sameFilesystem(ctx, init, '/etc/inittab')) continue;
    if (!(await ctx.index.read(binary)).includes(ASKFIRST_PROMPT, 0, 'latin1')) continue;
    const link = init.kind === 'symlink' ? ` -> ${init.linkTarget}` : '';
    findings.push(weaknessFinding('console-without-login', {
      where: '/sbin/init|console',
      cwe: 'CWE-306',
      severity: 'medium',
      name: 'Shell on the console without login (busybox init defaults, no /etc/inittab)',
      description: `/sbin/init is busybox and the image has no /etc/inittab, so init runs busybox's built-in table, which starts a shell on the console (::askfirst:-/bin/sh) without asking for a password. Anyone with access to the serial console gets a root shell.`,
      recommendedAction: 'Ship an /etc/inittab that runs a login (getty/login) on the console, or build busybox init without the default console shell.',
      occurrences: [
        { path: init.path, evidence: `/sbin/init${link}; no /etc/inittab in this filesystem` },
        { path: binary.path, evidence: `${binary.fsPath} contains "${ASKFIRST_PROMPT}"` },
      ],
    }));
  }
  return findings;
}

export const consoleWithoutLoginRule: WeaknessRule = {
  id: 'console-without-login',
  async run(ctx) {
    const findings: EngineFinding[] = [];
    for (const line of await startupLines(ctx)) {
      if (line.kind !== 'inittab') continue;
      const entry = parseInittab(line.text);
      if (!entry || !CONSOLE_ACTIONS.has(entry.action)) continue;
      const commands = commandsOf(entry.process);
      const first = commands[0];
      if (!first) continue;
      const occurrences: FindingOccurrence[] = [];
      if (directShell(first)) occurrences.push({ path: line.node.path, evidence: lineEvidence(line.node.fsPath, line.line, line.text) });
      else if (first.program.endsWith('.sh') || /^\//.test(entry.process)) {
        const script = entry.process.split(/\s+/)[0]!.replace(/^-/, '');
        const shellLines = await scriptShellLines(ctx, line, script);
        if (shellLines.length) occurrences.push({ path: line.node.path, evidence: lineEvidence(line.node.fsPath, line.line, line.text) }, ...shellLines);
      }
      if (!occurrences.length) continue;
      const tty = entry.id || 'console';
      findings.push(weaknessFinding('console-without-login', {
        where: `${line.node.fsPath}|${tty}`,
        cwe: 'CWE-306',
        severity: 'medium',
        name: `Shell on the ${tty} without login (${line.node.fsPath})`,
        description: `${line.node.fsPath} gives the ${tty} a shell without asking for a password (${entry.action}: ${entry.process}). Anyone with access to the serial console gets a root shell.`,
        recommendedAction: 'Run a login (getty/login) on the console, or disable the console shell in production builds.',
        occurrences,
      }));
    }
    return [...findings, ...(await busyboxDefaultInit(ctx))];
  },
};
