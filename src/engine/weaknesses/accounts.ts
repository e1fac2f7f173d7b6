// The local accounts of each filesystem in the image, from passwd and shadow files (glibc, busybox and uClibc
// layouts alike): an account's password field is the shadow one when passwd says 'x', else the passwd one.
// Files named passwd/shadow that are not account databases (the passwd program, a web page) do not parse and are
// ignored.
import { posix } from 'node:path';
import type { FileNode } from '../types.js';
import type { WeaknessContext } from './rule.js';

export interface Account {
  name: string;
  /** The password field as stored: '' (no password), a crypt hash, or a lock marker ('*', '!', 'x', ...). */
  password: string;
  uid?: number;
  shell?: string;
  /** The file the password field comes from, and its line. */
  node: FileNode;
  line: number;
}

const NAME = /^[A-Za-z0-9_.][A-Za-z0-9_.@$-]*$/;
const NO_LOGIN_SHELL = /(?:^|\/)(?:false|nologin|true)$|^\/dev\/null$/;
const MAX_SIZE = 1024 * 1024;

interface Entry {
  fields: string[];
  line: number;
}

/** The entries of an account file, or undefined when any non-comment line is not `name:password:...`. */
function parseEntries(text: string, minFields: number): Entry[] | undefined {
  const entries: Entry[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '' || line.startsWith('#')) continue;
    const fields = line.split(':');
    if (fields.length < minFields || !NAME.test(fields[0]!)) return undefined;
    entries.push({ fields, line: i + 1 });
  }
  return entries.length ? entries : undefined;
}

/** True when the account cannot open a shell (its shell is false/nologin). */
export function hasNoLoginShell(account: Account): boolean {
  return account.shell !== undefined && NO_LOGIN_SHELL.test(account.shell.trim());
}

export async function readAccounts(ctx: WeaknessContext): Promise<Account[]> {
  const files = ctx.index.glob('**/passwd', '**/passwd-', '**/shadow', '**/shadow-').filter((n) => n.size > 0 && n.size <= MAX_SIZE);
  const parsed = new Map<string, Entry[]>();
  for (const node of files) {
    const text = await ctx.text(node, MAX_SIZE);
    const isShadow = posix.basename(node.fsPath).startsWith('shadow');
    const entries = text === undefined ? undefined : parseEntries(text, isShadow ? 2 : 7);
    if (entries) parsed.set(node.path, entries);
  }
  const accounts: Account[] = [];
  const shadowsUsed = new Set<string>();
  for (const node of files) {
    const base = posix.basename(node.path);
    const entries = parsed.get(node.path);
    if (!entries || !base.startsWith('passwd')) continue;
    const shadowNode = ctx.index.get(posix.join(posix.dirname(node.path), base.replace('passwd', 'shadow')));
    const shadow = shadowNode ? parsed.get(shadowNode.path) : undefined;
    if (shadowNode && shadow) shadowsUsed.add(shadowNode.path);
    const seen = new Set<string>();
    for (const { fields, line } of entries) {
      const [name, field, uid, , , , shell] = fields as [string, string, string, string, string, string, string];
      seen.add(name);
      const common = { name, uid: /^\d+$/.test(uid) ? Number(uid) : undefined, shell };
      const fromShadow = field === 'x' ? shadow?.find((e) => e.fields[0] === name) : undefined;
      if (fromShadow && shadowNode) accounts.push({ ...common, password: fromShadow.fields[1]!, node: shadowNode, line: fromShadow.line });
      else accounts.push({ ...common, password: field, node, line });
    }
    // Shadow entries without a passwd line still hold a password.
    if (shadowNode && shadow) {
      for (const { fields, line } of shadow) if (!seen.has(fields[0]!)) accounts.push({ name: fields[0]!, password: fields[1]!, node: shadowNode, line });
    }
  }
  // A shadow file with no passwd file beside it.
  for (const node of files) {
    const entries = parsed.get(node.path);
    if (!entries || !posix.basename(node.path).startsWith('shadow') || shadowsUsed.has(node.path)) continue;
    for (const { fields, line } of entries) accounts.push({ name: fields[0]!, password: fields[1]!, node, line });
  }
  return accounts;
}
