// Accounts whose password hash is one of the factory-default passwords (default-passwords.ts) or the account's
// own name: a published credential that logs into every device running the image. The hash is verified with
// the scheme it names (crypt/verify.ts); costly settings are not checked and are noted as problems. Evidence
// names the account, the file and the default password (public by definition), and only the first 8
// characters of the hash.
import { readAccounts } from './accounts.js';
import { candidatesFor } from './default-passwords.js';
import { accountSeverity } from './empty-password.rule.js';
import { lineEvidence, weaknessFinding } from './finding.js';
import type { WeaknessRule } from './rule.js';
import { checkHash, hashScheme } from './crypt/verify.js';
import type { EngineFinding, Severity } from '../types.js';

// Each hash costs up to ~0.1 s per candidate (SHA-512-crypt, bcrypt cost 8): bound the work per image.
const MAX_HASHES = 64;
const STEP_UP: Record<Severity, Severity> = { critical: 'critical', high: 'critical', medium: 'high', low: 'medium', informational: 'low' };

export const defaultPasswordRule: WeaknessRule = {
  id: 'default-password',
  async run(ctx) {
    const findings: EngineFinding[] = [];
    // The same hash in several files (shadow and its backup) is checked once.
    const checked = new Map<string, ReturnType<typeof checkHash>>();
    for (const account of await readAccounts(ctx)) {
      ctx.signal.throwIfAborted();
      if (!hashScheme(account.password)) continue;
      const key = `${account.name}\0${account.password}`;
      if (!checked.has(key)) {
        if (checked.size >= MAX_HASHES) {
          ctx.note({ path: account.node.path, kind: 'limit', message: `account "${account.name}" in ${account.node.fsPath}: not checked against default passwords (more than ${MAX_HASHES} password hashes in the image)` });
          continue;
        }
        checked.set(key, checkHash(account.password, candidatesFor(account.name)));
      }
      const check = checked.get(key);
      if (!check || check.result === 'no-match') continue;
      if (check.result === 'unchecked') {
        ctx.note({ path: account.node.path, kind: 'skipped', message: `account "${account.name}" in ${account.node.fsPath}: ${check.scheme} not checked against default passwords (${check.reason})` });
        continue;
      }
      const what = check.password === account.name ? `its own name "${check.password}"` : `the default password "${check.password}"`;
      findings.push(weaknessFinding('default-password', {
        where: `${account.node.fsPath}|${account.name}`,
        cwe: 'CWE-259',
        // One step above an empty password of the same account: the credential is published and scanned for.
        severity: STEP_UP[accountSeverity(account)],
        name: `Account "${account.name}" has a default password (${account.node.fsPath})`,
        description: `The ${check.scheme} hash of the account "${account.name}"${account.uid !== undefined ? ` (uid ${account.uid})` : ''} in ${account.node.fsPath} is ${what}, a published factory-default credential tried by botnets such as Mirai: every device running this image accepts it.`,
        recommendedAction: 'Remove the built-in password: ship the account locked and require a unique password per device (printed label or first-use setup).',
        references: [{ url: 'https://cwe.mitre.org/data/definitions/259.html', description: 'CWE-259: Use of Hard-coded Password' }],
        occurrences: [{ path: account.node.path, evidence: lineEvidence(account.node.fsPath, account.line, `${account.name}:${account.password.slice(0, 8)}… (${check.scheme}) = "${check.password}"`) }],
      }));
    }
    return findings;
  },
};
