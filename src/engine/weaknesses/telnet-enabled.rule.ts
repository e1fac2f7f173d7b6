// telnetd started at boot (inittab, an rc script, inetd.conf, an enabled systemd unit): a cleartext remote login
// enabled by default. Severity high; critical when its login program is a shell (`telnetd -l /bin/sh`): a root
// shell for anyone on the network, no password asked. One finding per startup file, with every line that starts it.
import { lineEvidence, weaknessFinding } from './finding.js';
import type { WeaknessRule } from './rule.js';
import { SHELLS, commandsOfStartupLine, optionValue, startupLines } from './startup.js';
import type { EngineFinding, FileNode, FindingOccurrence } from '../types.js';
import { posix } from 'node:path';

export const TELNET_DAEMONS = new Set(['telnetd', 'utelnetd', 'in.telnetd']);

export const telnetEnabledRule: WeaknessRule = {
  id: 'telnet-enabled',
  async run(ctx) {
    const byFile = new Map<string, { node: FileNode; occurrences: FindingOccurrence[]; shell?: string }>();
    for (const line of await startupLines(ctx)) {
      for (const command of commandsOfStartupLine(line)) {
        const inetdTelnet = line.kind === 'inetd' && /^telnet\s/.test(line.text.trim());
        if (!TELNET_DAEMONS.has(command.program) && !inetdTelnet) continue;
        const entry = byFile.get(line.node.path) ?? { node: line.node, occurrences: [] };
        entry.occurrences.push({ path: line.node.path, evidence: lineEvidence(line.node.fsPath, line.line, line.text) });
        const login = optionValue(command.args, '-l');
        if (login && SHELLS.has(posix.basename(login))) entry.shell = login;
        byFile.set(line.node.path, entry);
      }
    }
    const findings: EngineFinding[] = [];
    for (const { node, occurrences, shell } of byFile.values()) {
      findings.push(weaknessFinding('telnet-enabled', {
        where: node.fsPath,
        cwe: shell ? 'CWE-306' : 'CWE-1188',
        severity: shell ? 'critical' : 'high',
        name: shell ? `telnet gives a shell without login (${node.fsPath})` : `telnet server started at boot (${node.fsPath})`,
        description: shell
          ? `${node.fsPath} starts telnetd with ${shell} as its login program: anyone who reaches the telnet port gets a root shell without a password.`
          : `${node.fsPath} starts a telnet server when the device boots. Telnet sends credentials in clear text and is the first service botnets such as Mirai try with default passwords.`,
        recommendedAction: 'Do not start telnetd by default; offer SSH with per-device credentials, and if a debug shell is needed, enable it only on explicit user action.',
        occurrences,
      }));
    }
    return findings;
  },
};
