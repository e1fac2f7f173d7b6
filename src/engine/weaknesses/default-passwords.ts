// Factory-default passwords that account hashes are checked against. Short on purpose (every candidate costs a
// hash per account): the passwords of the default-credential table in the published Mirai botnet source
// (github.com/jgamblin/Mirai-Source-Code, bot/table.c scanner credentials, 2016) that are most often baked into
// embedded Linux images, plus the generic defaults (admin, root, password, ...). The account's own name is
// tried too (admin/admin, support/support, user/user).
export const DEFAULT_PASSWORDS: readonly string[] = [
  'admin', 'root', 'password', 'default', 'toor', 'support', 'user', 'guest', 'system', 'service', 'tech', 'ubnt',
  '1234', '12345', '123456', '54321', '888888', '666666', '1111', '00000000',
  'vizxv', 'xc3511', 'realtek', 'anko', 'dreambox', 'juantech', 'hi3518', 'klv123', 'jvbzd', 'zlxx.', 'Zte521',
  '7ujMko0admin', '7ujMko0vizxv', 'smcadmin', 'admin1234', 'meinsm',
];

/** The candidates for one account: the defaults, then its own name when that is not already a default. */
export function candidatesFor(account: string): string[] {
  return DEFAULT_PASSWORDS.includes(account) || account === '' ? [...DEFAULT_PASSWORDS] : [...DEFAULT_PASSWORDS, account];
}
