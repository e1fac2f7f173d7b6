// A telnetd started with a built-in account on its command line (`telnetd -u Alphanetworks:$image_sign`, the
// Alpha Networks telnetd used by D-Link and TRENDnet routers): a vendor login that is not in the account files.
// The password is resolved when it is a literal or a variable read from a file of the image
// (`image_sign=\`cat /etc/config/image_sign\``); evidence gives its SHA-256 prefix and length, never the value.
// Severity critical: a network login shared by every device running the image.
import { posix } from 'node:path';
import { lineEvidence, secretDigest, weaknessFinding } from './finding.js';
import type { WeaknessContext, WeaknessRule } from './rule.js';
import { commandsOfStartupLine, optionValue, sameFilesystem, startupLines, type StartupLine } from './startup.js';
import { TELNET_DAEMONS } from './telnet-enabled.rule.js';
import type { EngineFinding } from '../types.js';

interface Resolved {
  password: string;
  source: string;
}

/** The value of `value`: a literal, or `$var` assigned from `cat <file>` (or a literal) in the same script. */
async function resolve(ctx: WeaknessContext, line: StartupLine, value: string, lines: readonly StartupLine[]): Promise<Resolved | undefined> {
  const variable = /^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$/.exec(value)?.[1];
  if (!variable) return value.includes('$') || value.includes('`') ? undefined : { password: value, source: `${line.node.fsPath}:${line.line}` };
  for (const other of lines) {
    if (other.node.path !== line.node.path) continue;
    const m = new RegExp(`^\\s*(?:local\\s+)?${variable}=(.*)$`).exec(other.text);
    if (!m) continue;
    const assigned = m[1]!.trim();
    const file = /^(?:`cat\s+([^`\s]+)\s*`|\$\(cat\s+([^)\s]+)\s*\))$/.exec(assigned);
    if (file) {
      const node = sameFilesystem(ctx, line.node, file[1] ?? file[2]!);
      const text = node ? await ctx.text(node, 4096) : undefined;
      if (node && text !== undefined) return { password: text.trim(), source: `${node.fsPath} (read by ${line.node.fsPath}:${other.line})` };
    } else if (/^["']?[^"'$`\s]+["']?$/.test(assigned)) {
      return { password: assigned.replace(/^["']|["']$/g, ''), source: `${line.node.fsPath}:${other.line}` };
    }
  }
  return undefined;
}

export const telnetdBuiltinAccountRule: WeaknessRule = {
  id: 'telnetd-builtin-account',
  async run(ctx) {
    const lines = await startupLines(ctx);
    const findings: EngineFinding[] = [];
    for (const line of lines) {
      for (const command of commandsOfStartupLine(line)) {
        const credential = TELNET_DAEMONS.has(command.program) ? optionValue(command.args, '-u') : undefined;
        const colon = credential?.indexOf(':') ?? -1;
        if (!credential || colon <= 0) continue;
        const user = credential.slice(0, colon);
        const resolved = await resolve(ctx, line, credential.slice(colon + 1), lines);
        findings.push(weaknessFinding('telnetd-builtin-account', {
          where: `${line.node.fsPath}|${user}`,
          cwe: 'CWE-798',
          severity: 'critical',
          name: `telnetd with a built-in account "${user}" (${posix.basename(line.node.fsPath)})`,
          description: `${line.node.fsPath} starts telnetd with the account "${user}" given on its command line${resolved ? `, its password taken from ${resolved.source}` : ''}. The credential is the same on every device running this image and is not managed with the other accounts: whoever reads the image can log in.`,
          recommendedAction: 'Remove the built-in telnet account; do not start telnetd by default.',
          occurrences: [{
            path: line.node.path,
            evidence: `${lineEvidence(line.node.fsPath, line.line, line.text)} — account "${user}", password ${resolved ? `from ${resolved.source} (${secretDigest(resolved.password)})` : 'not resolved from the image'}`,
          }],
        }));
      }
    }
    return findings;
  },
};
