// Signing in to a Firmscope server from the command line: the password grant (`firmscope login`, the tokens cached
// in the user's config folder, mode 0600, refreshed when the access token expires) or the client-credentials
// grant for CI (FIRMSCOPE_CLIENT_ID/FIRMSCOPE_CLIENT_SECRET or --client-id/--client-secret, never cached).
// Every failure is a CliError with a sentence a user can act on.
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { createFirmscopeClient, type FirmscopeClient } from '../../client/index.js';

/** An error whose message is the whole answer: printed without a stack, exit code 1 unless said. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
    this.name = 'CliError';
  }
}

export interface ConnectionFlags {
  url?: string;
  clientId?: string;
  clientSecret?: string;
}

interface CachedSession {
  url: string;
  email: string;
  accessToken: string;
  refreshToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  refreshExpiresAt: number;
}

interface TokenAnswer {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  refresh_expires_in: number;
}

const REALM = () => process.env.FIRMSCOPE_REALM ?? 'FirmscopeRealm';
const PUBLIC_CLIENT = () => process.env.FIRMSCOPE_PUBLIC_CLIENT_ID ?? 'FirmscopeClient';
/** Refresh a little before the expiry, so a token does not lapse between the check and the request. */
const EXPIRY_SLACK_MS = 30_000;

export function configDir(): string {
  return process.env.FIRMSCOPE_CONFIG_DIR ?? join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'firmscope');
}

export const credentialsPath = (): string => join(configDir(), 'credentials.json');

/** Adds --url, --client-id and --client-secret to a command that talks to a server. */
export function connectionOptions(command: Command): Command {
  return command
    .option('--url <url>', 'the Firmscope server (default: FIRMSCOPE_URL, or the one you logged in to)')
    .option('--client-id <id>', 'machine client for the client-credentials grant (default: FIRMSCOPE_CLIENT_ID)')
    .option('--client-secret <secret>', 'its secret (default: FIRMSCOPE_CLIENT_SECRET)');
}

export function normaliseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`'${url}' is not a URL; give the server's address, e.g. https://firmscope.example.com`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new CliError(`'${url}' is not an http(s) URL`);
  return parsed.toString().replace(/\/+$/, '');
}

/** fetch with the network failure said plainly (refused, unknown host, TLS) instead of "fetch failed". */
export async function reach(input: string | Request, init?: RequestInit): Promise<Response> {
  const url = typeof input === 'string' ? input : input.url;
  try {
    return await fetch(input, init);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new CliError(`cannot reach the Firmscope server at ${new URL(url).origin} (${why}); check the URL and that the server runs`);
  }
}

async function tokenRequest(url: string, form: Record<string, string>): Promise<TokenAnswer> {
  const endpoint = `${url}/realms/${REALM()}/protocol/openid-connect/token`;
  const response = await reach(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ scope: 'openid', ...form }),
  });
  const text = await response.text();
  let body: Partial<TokenAnswer> & { error?: string; error_description?: string };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new CliError(`${url} does not look like a Firmscope server (its token endpoint answered ${response.status} without JSON); check the URL`);
  }
  if (response.ok && body.access_token) return body as TokenAnswer;
  if (body.error === 'invalid_grant' || body.error === 'invalid_client') {
    throw new CliError(`sign-in refused by ${url}: ${body.error_description ?? body.error} (check the ${form.grant_type === 'password' ? 'email and password' : 'client id and secret'})`);
  }
  if (body.error) throw new CliError(`sign-in failed: ${body.error_description ?? body.error}`);
  throw new CliError(`${url} does not look like a Firmscope server (its token endpoint answered ${response.status}); check the URL`);
}

function toSession(url: string, email: string, answer: TokenAnswer): CachedSession {
  const now = Date.now();
  return {
    url, email, accessToken: answer.access_token, refreshToken: answer.refresh_token,
    expiresAt: now + answer.expires_in * 1000, refreshExpiresAt: now + answer.refresh_expires_in * 1000,
  };
}

async function saveSession(session: CachedSession): Promise<void> {
  await mkdir(configDir(), { recursive: true, mode: 0o700 });
  await writeFile(credentialsPath(), JSON.stringify(session, null, 2) + '\n', { mode: 0o600 });
  await chmod(credentialsPath(), 0o600); // writeFile's mode applies only when it creates the file
}

async function loadSession(): Promise<CachedSession | undefined> {
  try {
    return JSON.parse(await readFile(credentialsPath(), 'utf8')) as CachedSession;
  } catch {
    return undefined;
  }
}

/** `firmscope login`: the password grant; the session is cached for later commands. */
export async function login(url: string, email: string, password: string): Promise<void> {
  const base = normaliseUrl(url);
  await saveSession(toSession(base, email, await tokenRequest(base, { grant_type: 'password', client_id: PUBLIC_CLIENT(), username: email, password })));
}

export async function logout(): Promise<boolean> {
  const had = (await loadSession()) !== undefined;
  await rm(credentialsPath(), { force: true });
  return had;
}

export interface Connection {
  url: string;
  client: FirmscopeClient;
}

/**
 * The client for a command: client credentials when given (flags or environment), otherwise the cached session,
 * refreshed when its access token has expired.
 */
export async function connect(flags: ConnectionFlags): Promise<Connection> {
  const clientId = flags.clientId ?? process.env.FIRMSCOPE_CLIENT_ID;
  const clientSecret = flags.clientSecret ?? process.env.FIRMSCOPE_CLIENT_SECRET;
  const cached = await loadSession();
  const rawUrl = flags.url ?? process.env.FIRMSCOPE_URL ?? cached?.url;
  if (!rawUrl) throw new CliError('no server: run `firmscope login --url URL --email E`, or set FIRMSCOPE_URL with FIRMSCOPE_CLIENT_ID and FIRMSCOPE_CLIENT_SECRET');
  const url = normaliseUrl(rawUrl);
  let token: () => Promise<string>;
  if (clientId || clientSecret) {
    if (!clientId || !clientSecret) throw new CliError('the client-credentials grant needs both a client id and a client secret');
    let answer: TokenAnswer | undefined;
    let expiresAt = 0;
    token = async () => {
      if (!answer || Date.now() > expiresAt - EXPIRY_SLACK_MS) {
        answer = await tokenRequest(url, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
        expiresAt = Date.now() + answer.expires_in * 1000;
      }
      return answer.access_token;
    };
  } else {
    if (!cached || cached.url !== url) throw new CliError(`not signed in to ${url}: run \`firmscope login --url ${url} --email E\``);
    let session = cached;
    token = async () => {
      if (Date.now() < session.expiresAt - EXPIRY_SLACK_MS) return session.accessToken;
      if (Date.now() >= session.refreshExpiresAt) throw new CliError(`your session on ${url} has expired: run \`firmscope login --url ${url} --email ${session.email}\``);
      try {
        session = toSession(url, session.email, await tokenRequest(url, { grant_type: 'refresh_token', client_id: PUBLIC_CLIENT(), refresh_token: session.refreshToken }));
      } catch (error) {
        if (error instanceof CliError && /refused/.test(error.message)) throw new CliError(`your session on ${url} has expired: run \`firmscope login --url ${url} --email ${session.email}\``);
        throw error;
      }
      await saveSession(session);
      return session.accessToken;
    };
  }
  const client = createFirmscopeClient({ baseUrl: url, token, fetch: (request) => reach(request as Request) });
  return { url, client };
}
