import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.baseUrl).toBe('http://localhost:8080');
    expect(config.realm).toBe('FirmscopeRealm');
    expect(config.publicClientId).toBe('FirmscopeClient');
    expect(config.accessTokenSeconds).toBe(1800);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.dataDir).toMatch(/data$/);
  });

  it('derives the base URL from PORT and strips a trailing slash from an explicit one', () => {
    expect(loadConfig({ PORT: '9000' }).baseUrl).toBe('http://localhost:9000');
    expect(loadConfig({ FIRMSCOPE_BASE_URL: 'https://scan.example.com/' }).baseUrl).toBe('https://scan.example.com');
  });

  it('lists every bad variable in one error', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', FIRMSCOPE_BASE_URL: 'ftp://x', DATABASE_URL: 'mysql://x', FIRMSCOPE_WORKERS: '-1', FIRMSCOPE_ADMIN_EMAIL: 'a@b' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'FIRMSCOPE_BASE_URL', 'DATABASE_URL', 'FIRMSCOPE_WORKERS', 'FIRMSCOPE_ADMIN_PASSWORD']) {
      expect(problems).toContain(name);
    }
  });

  it('accepts a PostgreSQL URL', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h:5432/d' }).databaseUrl).toBe('postgres://u@h:5432/d');
  });
});
