// The `author` object every resource carries, read by joining the users table as `a`.
export interface Author {
  userId: string;
  id: string;
  createTime: string;
  email: string;
  status: string;
  resourceType: 'Org';
}

export interface AuthorColumns {
  author_id: string | null;
  author_email: string | null;
  author_create_time: string | null;
  author_status: string | null;
}

/** Columns to select alongside a row joined with `leftJoin('users as a', 'a.id', '<table>.author_id')`. */
export const authorSelection = ['a.email as author_email', 'a.create_time as author_create_time', 'a.status as author_status'] as const;

export function toAuthor(row: AuthorColumns): Author | undefined {
  if (!row.author_id) return undefined;
  return {
    userId: row.author_id,
    id: row.author_id,
    createTime: row.author_create_time ?? '',
    email: row.author_email ?? '',
    status: row.author_status ?? 'disabled',
    resourceType: 'Org',
  };
}
