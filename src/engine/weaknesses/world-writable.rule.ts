// Files and directories anyone may modify under /etc, /bin, /sbin, /usr and /lib (from the modes the filesystem
// stores: squashfs, cpio, ext, jffs2, ...): any local user or compromised service can replace a program, a
// library or a boot script that root later runs. Symlinks (always 0777), sticky directories (/tmp-like) and
// device nodes are not reported. Severity high for executables, libraries and startup scripts, medium
// otherwise. CWE-732. One finding per file.
import { weaknessFinding } from './finding.js';
import type { WeaknessRule } from './rule.js';

const SENSITIVE = /^\/(?:etc|bin|sbin|usr|lib|lib32|lib64)(?:\/|$)/;
const CODE = /^\/(?:bin|sbin|lib|lib32|lib64|usr\/(?:bin|sbin|lib|libexec|local\/bin|local\/sbin))\/|^\/etc\/(?:init[^/]*\.d|rc[^/]*)(?:\/|$)|^\/etc\/(?:inittab|profile|crontab)$/;

export const worldWritableRule: WeaknessRule = {
  id: 'world-writable',
  async run(ctx) {
    const nodes = ctx.index.nodes.filter((n) =>
      (n.kind === 'file' || (n.kind === 'directory' && ((n.mode ?? 0) & 0o1000) === 0)) &&
      n.mode !== undefined && (n.mode & 0o002) !== 0 && n.depth > 0 && SENSITIVE.test(n.fsPath));
    return nodes.map((node) => {
      const mode = (node.mode! & 0o7777).toString(8).padStart(4, '0');
      // A folder's x bit is search permission, not code: folders count by where they are.
      const code = node.kind === 'directory' ? CODE.test(`${node.fsPath}/`) : (node.mode! & 0o111) !== 0 || CODE.test(node.fsPath);
      const what = node.kind === 'directory' ? 'directory' : 'file';
      return weaknessFinding('world-writable', {
        where: node.fsPath,
        cwe: 'CWE-732',
        severity: code ? 'high' : 'medium',
        name: `World-writable ${what} ${node.fsPath}`,
        description: `${node.fsPath} has mode ${mode}: any user or process on the device can ${node.kind === 'directory' ? 'add, replace or delete files in it' : 'modify it'}${code ? ', and it holds code or configuration that root runs' : ''}.`,
        recommendedAction: `Remove write permission for others (chmod o-w ${node.fsPath}) in the image build.`,
        occurrences: [{ path: node.path, evidence: `${node.fsPath} mode ${mode}${node.uid !== undefined ? ` uid ${node.uid}` : ''}` }],
      });
    });
  },
};
