// Products: the tenant-scoped containers of images. Every read is scoped by organisation.
import type { Kysely } from 'kysely';
import { authorSelection, toAuthor, type Author } from './author.js';
import { newId, nowIso } from '../ids.js';
import type { Database } from './schema.js';

export interface Product {
  id: string;
  orgId: string;
  name: string;
  description: string | null;
  isArchived: boolean;
  createTime: string;
  updateTime: string;
  author?: Author;
}

export class ProductRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private query() {
    return this.db
      .selectFrom('products')
      .leftJoin('users as a', 'a.id', 'products.author_id')
      .selectAll('products')
      .select(authorSelection);
  }

  private toProduct(r: Database['products'] & { author_email: string | null; author_create_time: string | null; author_status: string | null }): Product {
    return {
      id: r.id, orgId: r.org_id, name: r.name, description: r.description, isArchived: r.is_archived === 1,
      createTime: r.create_time, updateTime: r.update_time, author: toAuthor(r),
    };
  }

  async create(input: { orgId: string; name: string; description?: string | null; authorId: string }): Promise<Product> {
    const now = nowIso();
    const id = newId();
    await this.db
      .insertInto('products')
      .values({
        id, org_id: input.orgId, name: input.name, description: input.description ?? null, author_id: input.authorId,
        is_archived: 0, create_time: now, update_time: now,
      })
      .execute();
    return (await this.get(input.orgId, id))!;
  }

  async get(orgId: string, id: string): Promise<Product | undefined> {
    const row = await this.query().where('products.org_id', '=', orgId).where('products.id', '=', id).executeTakeFirst();
    return row && this.toProduct(row);
  }

  async list(orgId: string, options: { includeArchived?: boolean } = {}): Promise<Product[]> {
    let query = this.query().where('products.org_id', '=', orgId);
    if (!options.includeArchived) query = query.where('products.is_archived', '=', 0);
    const rows = await query.orderBy('products.create_time', 'desc').orderBy('products.id', 'desc').execute();
    return rows.map((r) => this.toProduct(r));
  }

  async update(orgId: string, id: string, patch: { name?: string; description?: string | null; isArchived?: boolean }): Promise<Product | undefined> {
    const values: Partial<Database['products']> = { update_time: nowIso() };
    if (patch.name !== undefined) values.name = patch.name;
    if (patch.description !== undefined) values.description = patch.description;
    if (patch.isArchived !== undefined) values.is_archived = patch.isArchived ? 1 : 0;
    await this.db.updateTable('products').set(values).where('org_id', '=', orgId).where('id', '=', id).execute();
    return this.get(orgId, id);
  }
}
