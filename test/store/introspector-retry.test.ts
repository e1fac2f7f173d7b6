// The migrator's table listing reads every schema of the server; a schema, table or column that another test drops
// during the listing fails it once (invalid_schema_name, undefined_table, undefined_column), and the listing is
// read again. Any other error, or the same one five times, is the caller's.
import { type Kysely, PostgresIntrospector } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RetryingPostgresIntrospector } from '../../src/store/database.js';

const introspector = () => new RetryingPostgresIntrospector({} as Kysely<unknown>);
const failure = (code: string) => Object.assign(new Error(`catalog changed (${code})`), { code });

afterEach(() => vi.restoreAllMocks());

describe('table listing during concurrent drops', () => {
  it.each(['3F000', '42P01', '42703'])('reads the catalog again after %s', async (code) => {
    const listing = vi.spyOn(PostgresIntrospector.prototype, 'getTables').mockRejectedValueOnce(failure(code)).mockResolvedValueOnce([]);
    await expect(introspector().getTables()).resolves.toEqual([]);
    expect(listing).toHaveBeenCalledTimes(2);
  });

  it('gives up after five attempts, and passes any other error at once', async () => {
    const dropped = vi.spyOn(PostgresIntrospector.prototype, 'getTables').mockRejectedValue(failure('42P01'));
    await expect(introspector().getTables()).rejects.toThrow(/42P01/);
    expect(dropped).toHaveBeenCalledTimes(5);
    dropped.mockReset().mockRejectedValue(failure('42501'));
    await expect(introspector().getTables()).rejects.toThrow(/42501/);
    expect(dropped).toHaveBeenCalledTimes(1);
  });
});
