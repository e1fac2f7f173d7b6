// Organisations, users (people and machine clients' service accounts) and machine clients.
import type { Kysely } from 'kysely';
import { ConflictError } from '../services/errors.js';
import { newId, nowIso } from './ids.js';
import type { Database, Role } from './schema.js';

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

type UserRow = Database['users'];
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
    if (await this.findOrgByName(name)) throw new ConflictError(`organisation '${name}' already exists`);
    const org = { id: newId(), name, create_time: nowIso() };
    await this.db.insertInto('organisations').values(org).execute();
    return { id: org.id, name, createTime: org.create_time };
  }

  async listOrgs(): Promise<Organisation[]> {
    const rows = await this.db.selectFrom('organisations').selectAll().orderBy('create_time').execute();
    return rows.map((r) => ({ id: r.id, name: r.name, createTime: r.create_time }));
  }

  async createUser(input: { orgId: string; email: string; role: Role; passwordHash: string | null; kind?: 'user' | 'client' }): Promise<User> {
    const email = input.email.toLowerCase();
    if (await this.findUserByEmail(email)) throw new ConflictError(`a user with e-mail '${email}' already exists`);
    const row: UserRow = {
      id: newId(), org_id: input.orgId, email, kind: input.kind ?? 'user', role: input.role,
      password_hash: input.passwordHash, status: 'active', create_time: nowIso(),
    };
    await this.db.insertInto('users').values(row).execute();
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
    if (await this.findClient(input.clientId)) throw new ConflictError(`client '${input.clientId}' already exists`);
    return this.db.transaction().execute(async (trx) => {
      const repo = new IdentityRepository(trx);
      const user = await repo.createUser({
        orgId: input.orgId, email: `service-account-${input.clientId}@clients.invalid`, role: input.role, passwordHash: null, kind: 'client',
      });
      const row = {
        id: newId(), client_id: input.clientId, name: input.name, org_id: input.orgId, user_id: user.id,
        secret_hash: input.secretHash, role: input.role, create_time: nowIso(),
      };
      await trx.insertInto('clients').values(row).execute();
      return {
        id: row.id, clientId: row.client_id, name: row.name, orgId: row.org_id, userId: row.user_id, role: row.role,
        secretHash: row.secret_hash, createTime: row.create_time,
      };
    });
  }

  async findClient(clientId: string): Promise<Client | undefined> {
    const r = await this.db.selectFrom('clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
    return r && {
      id: r.id, clientId: r.client_id, name: r.name, orgId: r.org_id, userId: r.user_id, role: r.role as Role,
      secretHash: r.secret_hash, createTime: r.create_time,
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
