// Programs that run as root for whoever starts them (setuid, owner uid 0) beyond the short list of tools that
// need it: su, sudo, passwd, chsh, chfn, newgrp, gpasswd, ping, ping6, mount, umount, fusermount(3), pkexec, and
// busybox when it is the multi-call binary (its applets drop privileges per applet). Any other setuid-root
// program is an escalation path waiting for one bug. Severity high for a shell or script interpreter (a root
// shell for anyone), medium otherwise. CWE-732.
import { posix } from 'node:path';
import { weaknessFinding } from './finding.js';
import type { WeaknessRule } from './rule.js';
import { SHELLS } from './startup.js';

export const EXPECTED_SETUID = new Set([
  'su', 'sudo', 'passwd', 'chsh', 'chfn', 'newgrp', 'gpasswd', 'ping', 'ping6', 'mount', 'umount', 'fusermount', 'fusermount3', 'pkexec', 'busybox',
]);
const INTERPRETERS = /^(?:python[0-9.]*|perl[0-9.]*|lua[0-9.]*|php[0-9.]*|ruby|tclsh|awk|gawk)$/;

export const unexpectedSetuidRule: WeaknessRule = {
  id: 'unexpected-setuid',
  async run(ctx) {
    return ctx.index.nodes
      .filter((n) => n.kind === 'file' && n.mode !== undefined && (n.mode & 0o4000) !== 0 && n.uid === 0 && n.depth > 0)
      .filter((n) => !EXPECTED_SETUID.has(posix.basename(n.fsPath)))
      .map((node) => {
        const name = posix.basename(node.fsPath);
        const shell = SHELLS.has(name) || INTERPRETERS.test(name);
        const mode = (node.mode! & 0o7777).toString(8).padStart(4, '0');
        return weaknessFinding('unexpected-setuid', {
          where: node.fsPath,
          cwe: 'CWE-732',
          severity: shell ? 'high' : 'medium',
          name: `Unexpected setuid-root program ${node.fsPath}`,
          description: `${node.fsPath} is owned by root with the setuid bit (mode ${mode}): it runs as root for any user who starts it${shell ? ', and it is a shell or interpreter, so any local user gets root' : ''}. It is not one of the programs that need setuid (su, passwd, ping, mount, ...).`,
          recommendedAction: `Remove the setuid bit (chmod u-s ${node.fsPath}) unless the program is designed and audited to run setuid; grant narrower capabilities instead.`,
          occurrences: [{ path: node.path, evidence: `${node.fsPath} mode ${mode} uid 0` }],
        });
      });
  },
};
