// A password written as a literal in a configuration file or script: `password=secret123`, `PASSWD="x"`,
// `$admin_password = 'x';`, UCI `option password 'x'`, `"password": "x"`, hostapd `wpa_passphrase=x`. Only text
// files (a file with a NUL byte in its head is skipped, so binaries' format strings like "password=%s" never
// count), only assignments at the start of a line, and only literal values: a variable or command
// (`$PASS`, `$(...)`, `query(...)`), a format (`%s`), a template (`<password>`, `{{ }}`, `@PW@`), a path, a
// placeholder (`****`, `xxxx`, `none`, `changeme`...) or an empty value is not a password. Documentation, man
// pages, locale data and web UI translations are not searched. Evidence: the key, the SHA-256 prefix and length of the value, and the
// value itself only when it is one of the published default passwords. Severity high when the value is a
// default password, medium otherwise. CWE-259. One finding per file and key (the most severe
// occurrence describes it).
import { posix } from 'node:path';
import { DEFAULT_PASSWORDS } from './default-passwords.js';
import { isExcludedText } from './excluded-paths.js';
import { secretDigest, weaknessFinding } from './finding.js';
import type { WeaknessContext, WeaknessRule } from './rule.js';
import type { EngineFinding, FileNode } from '../types.js';

const EXCLUDED_EXT = /\.(?:md|rst|txt|html?|pod|po|mo|lang|[1-9]|man|h|c|pem|crt|key)$/i;
const MAX_SIZE = 512 * 1024;
const MAX_LINE = 1024;

const ASSIGNMENT =
  /^\s*(?:(?:export|local|readonly|declare|var|let|const|set|option)\s+)?[$"']?([A-Za-z0-9_.-]*?(?:^|[_.-]|\b)(?:password|passwd|passwort|pwd|pass|passphrase))["']?\s*(=|:|\s)\s*(.*?)\s*[;,]?\s*$/i;
/** What every password assignment's line holds (its key): a text without it has none. */
const MENTIONS_PASSWORD = /pass|pwd/i;
const PLACEHOLDER = /^(?:none|null|nil|undefined|true|false|yes|no|on|off|required|optional|changeme|change_me|secret|password|your[_-]?password|<.*>|\{\{.*\}\}|@.*@|%.*%|\*+|x+|\.+|-+|_+)$/i;

/** The literal value of an assignment's right-hand side, or undefined when it is not a literal password. */
export function literalValue(raw: string): string | undefined {
  let value = raw.replace(/\s+#.*$/, '');
  const quoted = /^(["'])(.*)\1$/.exec(value);
  if (quoted) value = quoted[2]!;
  // Whitespace marks a label or a sentence ("Mot de passe"), not a password; unquoted, it is an expression.
  if (/["'\s]/.test(value)) return undefined;
  if (value.length < 3 || /[$`%(){}\\]/.test(value) || value.startsWith('/') || PLACEHOLDER.test(value)) return undefined;
  if (/^(.)\1*$/.test(value)) return undefined;
  return value;
}

/** The file's literal password assignments, one finding each; none for a binary. */
async function assignmentsIn(ctx: WeaknessContext, node: FileNode): Promise<EngineFinding[]> {
  const findings: EngineFinding[] = [];
  const text = await ctx.text(node, MAX_SIZE);
  // most files name no password at all: one search passes them over without splitting them into lines
  if (text === undefined || !MENTIONS_PASSWORD.test(text)) return findings;
  for (const [i, line] of text.split('\n').entries()) {
    // Long lines are minified code or data, not assignments (and would make the pattern slow).
    if (line.length > MAX_LINE || !MENTIONS_PASSWORD.test(line) || /^\s*(?:#|\/\/|;|--|\*|<!--)/.test(line)) continue;
    const m = ASSIGNMENT.exec(line);
    if (!m) continue;
    const [, key, separator] = m;
    // Whitespace separates key and value only in UCI (`option password 'x'`) and similar `key value` configs.
    if (separator!.trim() === '' && !/^\s*option\s/.test(line)) continue;
    const value = literalValue(m[3]!);
    if (value === undefined) continue;
    const isDefault = DEFAULT_PASSWORDS.includes(value);
    findings.push(weaknessFinding('password-assignment', {
      where: `${node.fsPath}|${key!.toLowerCase()}`,
      cwe: 'CWE-259',
      severity: isDefault ? 'high' : 'medium',
      name: `Hard-coded password "${key}" in ${posix.basename(node.fsPath)}`,
      description: `${node.fsPath} sets ${key} to a literal password${isDefault ? ` ("${value}", a published default)` : ''}. It is the same on every device running this image and readable by anyone who extracts it.`,
      recommendedAction: 'Remove the password from the image: generate it per device at first boot or provisioning, or read it from protected storage.',
      occurrences: [{ path: node.path, evidence: `${node.fsPath}:${i + 1}: ${key}${isDefault ? ` = "${value}" (a default password)` : ` = <${secretDigest(value)}>`}` }],
    }));
  }
  return findings;
}

export const passwordAssignmentRule: WeaknessRule = {
  id: 'password-assignment',
  async run(ctx) {
    const searched = ctx.index.files().filter((node) => node.size > 0 && node.size <= MAX_SIZE && !isExcludedText(node.fsPath) && !EXCLUDED_EXT.test(node.fsPath));
    return ctx.perFile(searched, (node) => assignmentsIn(ctx, node));
  },
};
