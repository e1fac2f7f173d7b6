// Debug and maintenance daemons started at boot: gdbserver (remote debugging of a process, arbitrary code),
// adbd (Android debug bridge: a shell), dropbear with -B (logins with a blank password accepted), a TFTP server
// that accepts uploads (-c) or serves the root filesystem, and an HTTP server (busybox httpd) serving `/`.
// Severity high for each (remote access with no or trivial authentication); CWE-1188 (insecure default).
// One finding per startup file and daemon.
import { lineEvidence, weaknessFinding } from './finding.js';
import type { WeaknessRule } from './rule.js';
import { commandsOfStartupLine, optionValue, startupLines, type Command } from './startup.js';
import type { EngineFinding } from '../types.js';

interface Verdict {
  daemon: string;
  why: string;
}

const TFTPD = new Set(['tftpd', 'in.tftpd', 'atftpd', 'tftpd-hpa']);

// Options of busybox tftpd and tftpd-hpa that take a value; the served folder is the last other operand.
const TFTPD_VALUE_OPTIONS = new Set(['-u', '-U', '-a', '-m', '-T', '-B', '-R', '-r', '-P']);

function servedFolder(args: readonly string[]): string | undefined {
  return args.filter((a, i) => !a.startsWith('-') && !TFTPD_VALUE_OPTIONS.has(args[i - 1] ?? '')).at(-1);
}

export function debugService(command: Command): Verdict | undefined {
  const { program, args } = command;
  if (program === 'gdbserver') return { daemon: 'gdbserver', why: 'gdbserver lets anyone who reaches its port debug, read and rewrite a process' };
  if (program === 'adbd') return { daemon: 'adbd', why: 'adbd (Android Debug Bridge) gives a shell to anyone who reaches it' };
  if (program === 'dropbear' && args.some((a) => /^-[A-Za-z]*B[A-Za-z]*$/.test(a))) return { daemon: 'dropbear -B', why: 'dropbear is started with -B, which accepts logins with a blank password' };
  if (TFTPD.has(program) || (program === 'udpsvd' && args.some((a) => a === 'tftpd'))) {
    const tftpArgs = program === 'udpsvd' ? args.slice(args.indexOf('tftpd') + 1) : args;
    if (tftpArgs.includes('-c')) return { daemon: 'tftpd', why: 'the TFTP server accepts uploads (-c) without authentication' };
    if (servedFolder(tftpArgs) === '/') return { daemon: 'tftpd', why: 'the TFTP server serves the whole root filesystem without authentication' };
  }
  if (program === 'httpd' && optionValue(args, '-h') === '/') return { daemon: 'httpd -h /', why: 'the HTTP server serves the whole root filesystem (-h /)' };
  return undefined;
}

export const debugServiceRule: WeaknessRule = {
  id: 'debug-service',
  async run(ctx) {
    const findings: EngineFinding[] = [];
    for (const line of await startupLines(ctx)) {
      for (const command of commandsOfStartupLine(line)) {
        const verdict = debugService(command);
        if (!verdict) continue;
        findings.push(weaknessFinding('debug-service', {
          where: `${line.node.fsPath}|${verdict.daemon}`,
          cwe: 'CWE-1188',
          severity: 'high',
          name: `Debug service started at boot: ${verdict.daemon} (${line.node.fsPath})`,
          description: `${line.node.fsPath} starts ${verdict.daemon} when the device boots: ${verdict.why}.`,
          recommendedAction: 'Remove debug daemons from production images, or start them only on explicit user action and bound to a local interface.',
          occurrences: [{ path: line.node.path, evidence: lineEvidence(line.node.fsPath, line.line, line.text) }],
        }));
      }
    }
    return findings;
  },
};
