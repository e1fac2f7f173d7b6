// Accounts with an empty password field (in shadow, or in passwd when there is no shadow entry): login with no
// password at all wherever the account is accepted (console, telnet, su, services using the system accounts).
// Severity: high for root (uid 0), medium for other accounts, low when the account's shell is false/nologin.
import { hasNoLoginShell, readAccounts, type Account } from './accounts.js';
import { lineEvidence, weaknessFinding } from './finding.js';
import type { WeaknessRule } from './rule.js';
import type { Severity } from '../types.js';

export function accountSeverity(account: Account): Severity {
  if (hasNoLoginShell(account)) return 'low';
  return account.uid === 0 || (account.uid === undefined && account.name === 'root') ? 'high' : 'medium';
}

export const emptyPasswordRule: WeaknessRule = {
  id: 'empty-password',
  async run(ctx) {
    const accounts = (await readAccounts(ctx)).filter((a) => a.password === '');
    return accounts.map((account) =>
      weaknessFinding('empty-password', {
        where: `${account.node.fsPath}|${account.name}`,
        cwe: 'CWE-258',
        severity: accountSeverity(account),
        name: `Account "${account.name}" has an empty password (${account.node.fsPath})`,
        description: `The account "${account.name}"${account.uid !== undefined ? ` (uid ${account.uid})` : ''} in ${account.node.fsPath} has an empty password field: anyone can log in as it without a password wherever the system accounts are accepted (serial console, telnet, su, local services).`,
        recommendedAction: 'Ship the account locked (\'*\' or \'!\' in the password field) and require a unique password to be set at first use, or remove the account.',
        occurrences: [{ path: account.node.path, evidence: lineEvidence(account.node.fsPath, account.line, `${account.name}:<empty password>`) }],
      }),
    );
  },
};
