// Organisations, users (people and machine clients' service accounts) and machine clients.
import type { Kysely } from 'kysely';
import { newId, nowIso } from '../ids.js';
import type { Database, Role } from './schema.js';
import { conflictOnDuplicate } from './unique-violation.js';

export interface Organisation {
  id: string;
  name: string;
  createTime: string;
}

export interface User {
  id: string;
  orgId: string;
  email: string;
  kind: 'user' | 'client';
  role: Role;
  status: 'active' | 'disabled';
  createTime: string;
  passwordHash: string | null;
}

export interface AuthorizationCode {
  codeHash: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  nonce: string | null;
  createTime: string;
  expireTime: string;
}

export interface Client {
  id: string;
  clientId: string;
  name: string;
  orgId: string;
  userId: string;
  role: Role;
  secretHash: string;
  createTime: string;
}

/** Failed password sign-ins of one account name (see auth/sign-in-throttle.ts). */
export interface SignInFailures {
  failures: number;
  lastFailureTime: string;
  blockedUntil: string;
}

// E-mails are unique in the whole instance, not per organisation: the password grant names the account by its
// e-mail alone (username = e-mail, no organisation in the token request), so one e-mail must mean one account.
// The conflict message therefore says only that the e-mail is taken, never where, so it reveals no other tenant.
const emailTaken = (email: string) => `the e-mail '${email}' cannot be used for a new account; choose another one`;

type UserRow = Database['users'];
interface NewUser {
  orgId: string;
  email: string;
  role: Role;
  passwordHash: string | null;
  kind?: 'user' | 'client';
}

const userRow = (input: NewUser): UserRow => ({
  id: newId(), org_id: input.orgId, email: input.email.toLowerCase(), kind: input.kind ?? 'user', role: input.role,
  password_hash: input.passwordHash, status: 'active', create_time: nowIso(),
});

const toUser = (r: UserRow): User => ({
  id: r.id, orgId: r.org_id, email: r.email, kind: r.kind, role: r.role, status: r.status, createTime: r.create_time,
  passwordHash: r.password_hash,
});

export class IdentityRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async findOrgByName(name: string): Promise<Organisation | undefined> {
    const row = await this.db.selectFrom('organisations').selectAll().where('name', '=', name).executeTakeFirst();
    return row && { id: row.id, name: row.name, createTime: row.create_time };
  }

  async findOrg(id: string): Promise<Organisation | undefined> {
    const row = await this.db.selectFrom('organisations').selectAll().where('id', '=', id).executeTakeFirst();
    return row && { id: row.id, name: row.name, createTime: row.create_time };
  }

  async createOrg(name: string): Promise<Organisation> {
    const org = { id: newId(), name, create_time: nowIso() };
    await conflictOnDuplicate(`organisation '${name}' already exists`, () => this.db.insertInto('organisations').values(org).execute());
    return { id: org.id, name, createTime: org.create_time };
  }

  async listOrgs(): Promise<Organisation[]> {
    const rows = await this.db.selectFrom('organisations').selectAll().orderBy('create_time').execute();
    return rows.map((r) => ({ id: r.id, name: r.name, createTime: r.create_time }));
  }

  async createUser(input: NewUser): Promise<User> {
    const row = userRow(input);
    await conflictOnDuplicate(emailTaken(row.email), () => this.db.insertInto('users').values(row).execute());
    return toUser(row);
  }

  async findUserByEmail(email: string): Promise<User | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
    return row && toUser(row);
  }

  async findUser(id: string): Promise<User | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toUser(row);
  }

  async listUsers(orgId: string): Promise<User[]> {
    const rows = await this.db.selectFrom('users').selectAll().where('org_id', '=', orgId).where('kind', '=', 'user').orderBy('create_time').execute();
    return rows.map(toUser);
  }

  async countUsers(orgId: string): Promise<number> {
    const row = await this.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** A machine client and its service-account user (the author of what it creates), in one transaction. */
  async createClient(input: { orgId: string; name: string; clientId: string; secretHash: string; role: Role }): Promise<Client> {
    // Client ids are unique in the whole instance (client_credentials names the client by its id alone); the
    // message does not say which organisation holds a taken id.
    const taken = `the client id '${input.clientId}' cannot be used; choose another one, or leave it out to get a generated one`;
    return conflictOnDuplicate(taken, () => this.db.transaction().execute(async (trx) => {
      const user = userRow({
        orgId: input.orgId, email: `service-account-${input.clientId}@clients.invalid`, role: input.role, passwordHash: null, kind: 'client',
      });
      await trx.insertInto('users').values(user).execute();
      const row = {
        id: newId(), client_id: input.clientId, name: input.name, org_id: input.orgId, user_id: user.id,
        secret_hash: input.secretHash, role: input.role, create_time: nowIso(),
      };
      await trx.insertInto('clients').values(row).execute();
      return {
        id: row.id, clientId: row.client_id, name: row.name, orgId: row.org_id, userId: row.user_id, role: row.role,
        secretHash: row.secret_hash, createTime: row.create_time,
      };
    }));
  }

  async findClient(clientId: string): Promise<Client | undefined> {
    const r = await this.db.selectFrom('clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
    return r && toClient(r);
  }

  /** The organisation's machine clients, oldest first. */
  async listClients(orgId: string): Promise<Client[]> {
    const rows = await this.db.selectFrom('clients').selectAll().where('org_id', '=', orgId).orderBy('create_time').orderBy('id').execute();
    return rows.map(toClient);
  }

  /** The local user an external issuer's subject is bound to. */
  async findExternalUser(issuer: string, subject: string): Promise<User | undefined> {
    const row = await this.db
      .selectFrom('external_identities as x')
      .innerJoin('users', 'users.id', 'x.user_id')
      .selectAll('users')
      .where('x.issuer', '=', issuer)
      .where('x.subject', '=', subject)
      .executeTakeFirst();
    return row && toUser(row);
  }

  /**
   * A new user bound to the external subject, in one transaction; ConflictError when the subject is already bound
   * or the e-mail taken (a concurrent first sign-in of the same subject: the caller reads the binding again).
   */
  async createExternalUser(input: { issuer: string; subject: string; orgId: string; email: string; role: Role }): Promise<User> {
    const user = userRow({ orgId: input.orgId, email: input.email, role: input.role, passwordHash: null });
    await conflictOnDuplicate(`external subject '${input.subject}' is already bound, or its e-mail taken`, () =>
      this.db.transaction().execute(async (trx) => {
        await trx.insertInto('users').values(user).execute();
        await trx.insertInto('external_identities').values({ issuer: input.issuer, subject: input.subject, user_id: user.id, create_time: user.create_time }).execute();
      }),
    );
    return toUser(user);
  }

  async signInFailures(account: string): Promise<SignInFailures | undefined> {
    const row = await this.db.selectFrom('sign_in_failures').selectAll().where('account', '=', account).executeTakeFirst();
    return row && { failures: Number(row.failures), lastFailureTime: row.last_failure_time, blockedUntil: row.blocked_until };
  }

  /** Counts one more failure atomically (concurrent failures all count) and returns the new count. */
  async addSignInFailure(account: string, now: string): Promise<number> {
    const row = await this.db
      .insertInto('sign_in_failures')
      .values({ account, failures: 1, last_failure_time: now, blocked_until: now })
      .onConflict((oc) => oc.column('account').doUpdateSet((eb) => ({
        failures: eb('sign_in_failures.failures', '+', 1),
        last_failure_time: eb.ref('excluded.last_failure_time'),
      })))
      .returning('failures')
      .executeTakeFirstOrThrow();
    return Number(row.failures);
  }

  /** Blocks the account until `until`, unless another failure was counted since it had `failures`. */
  async blockSignIn(account: string, failures: number, until: string): Promise<void> {
    await this.db.updateTable('sign_in_failures').set({ blocked_until: until }).where('account', '=', account).where('failures', '=', failures).execute();
  }

  /**
   * Counts an attempt as failed before its password is checked, only if the account still has `failures`
   * (compare-and-set): of concurrent attempts exactly one wins, so a delay cannot be bypassed by parallel guesses.
   */
  async claimSignInAttempt(account: string, failures: number, next: { failures: number; now: string; blockedUntil: string }): Promise<boolean> {
    const result = await this.db
      .updateTable('sign_in_failures')
      .set({ failures: next.failures, last_failure_time: next.now, blocked_until: next.blockedUntil })
      .where('account', '=', account)
      .where('failures', '=', failures)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Forgets the failures of an account (successful sign-in, admin unlock); true when there were any. */
  async clearSignInFailures(account: string): Promise<boolean> {
    const result = await this.db.deleteFrom('sign_in_failures').where('account', '=', account).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Removes the rows of accounts that are not blocked and failed last before `before`. */
  async pruneSignInFailures(before: string, now: string): Promise<void> {
    await this.db.deleteFrom('sign_in_failures').where('last_failure_time', '<', before).where('blocked_until', '<=', now).execute();
  }

  /** Stores a login's authorization code (by its hash) and drops the expired ones. */
  async addAuthorizationCode(code: AuthorizationCode): Promise<void> {
    await this.db.deleteFrom('authorization_codes').where('expire_time', '<', code.createTime).execute();
    await this.db.insertInto('authorization_codes').values({
      code_hash: code.codeHash, client_id: code.clientId, user_id: code.userId, redirect_uri: code.redirectUri,
      code_challenge: code.codeChallenge, scope: code.scope, nonce: code.nonce, create_time: code.createTime, expire_time: code.expireTime,
    }).execute();
  }

  /** Takes an authorization code out (single use: of concurrent redemptions exactly one gets it), expired or not. */
  async redeemAuthorizationCode(codeHash: string): Promise<AuthorizationCode | undefined> {
    const row = await this.db.deleteFrom('authorization_codes').where('code_hash', '=', codeHash).returningAll().executeTakeFirst();
    return row && {
      codeHash: row.code_hash, clientId: row.client_id, userId: row.user_id, redirectUri: row.redirect_uri,
      codeChallenge: row.code_challenge, scope: row.scope, nonce: row.nonce, createTime: row.create_time, expireTime: row.expire_time,
    };
  }

  async listSigningKeys(): Promise<Array<{ kid: string; privateJwk: string; publicJwk: string }>> {
    const rows = await this.db.selectFrom('signing_keys').selectAll().orderBy('create_time', 'desc').execute();
    return rows.map((r) => ({ kid: r.kid, privateJwk: r.private_jwk, publicJwk: r.public_jwk }));
  }

  /** Inserts unless another process stored a key first (then the caller re-reads). */
  async addSigningKey(key: { kid: string; privateJwk: string; publicJwk: string }): Promise<void> {
    await this.db
      .insertInto('signing_keys')
      .values({ kid: key.kid, private_jwk: key.privateJwk, public_jwk: key.publicJwk, create_time: nowIso() })
      .onConflict((oc) => oc.column('kid').doNothing())
      .execute();
  }
}

function toClient(r: Database['clients']): Client {
  return {
    id: r.id, clientId: r.client_id, name: r.name, orgId: r.org_id, userId: r.user_id, role: r.role as Role,
    secretHash: r.secret_hash, createTime: r.create_time,
  };
}
