import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { headerFiles, parseRpmHeader, TAG } from '../../../src/engine/inventory/rpm-header.js';
import { FormatError } from '../../../src/engine/format-error.js';
import { fixtureTrees, inventoryOfDirectory } from './support.js';

/** Writes an RPM header blob (rpmdb layout, no magic) from tag → string | string[] | int32[]. */
function header(tags: Record<number, string | string[] | number[]>): Buffer {
  const entries: Buffer[] = [];
  const data: Buffer[] = [];
  let size = 0;
  for (const [tag, value] of Object.entries(tags)) {
    const isInt = Array.isArray(value) && typeof value[0] === 'number';
    if (isInt && size % 4) {
      data.push(Buffer.alloc(4 - (size % 4)));
      size += 4 - (size % 4);
    }
    const bytes = isInt
      ? Buffer.concat((value as number[]).map((n) => { const b = Buffer.alloc(4); b.writeInt32BE(n); return b; }))
      : Buffer.concat((Array.isArray(value) ? (value as string[]) : [value as string]).map((s) => Buffer.from(s + '\0')));
    const e = Buffer.alloc(16);
    e.writeUInt32BE(Number(tag), 0);
    e.writeUInt32BE(isInt ? 4 : Array.isArray(value) ? 8 : 6, 4);
    e.writeUInt32BE(size, 8);
    e.writeUInt32BE(Array.isArray(value) ? value.length : 1, 12);
    entries.push(e);
    data.push(bytes);
    size += bytes.length;
  }
  const pre = Buffer.alloc(8);
  pre.writeUInt32BE(entries.length, 0);
  pre.writeUInt32BE(size, 4);
  return Buffer.concat([pre, ...entries, ...data]);
}

const { tree, cleanup } = fixtureTrees('rpmdb-');
afterAll(cleanup);

describe('RPM headers', () => {
  it('decodes strings, string arrays, INT32 arrays and file lists', () => {
    const h = parseRpmHeader(header({ [TAG.NAME]: 'zlib', [TAG.VERSION]: '1.2.11', [TAG.DIRINDEXES]: [0, 1], [TAG.BASENAMES]: ['libz.so.1.2.11', 'zlib.h'], [TAG.DIRNAMES]: ['/usr/lib64/', '/usr/include/'] }));
    expect(h.get(TAG.NAME)).toBe('zlib');
    expect(headerFiles(h)).toEqual(['/usr/lib64/libz.so.1.2.11', '/usr/include/zlib.h']);
  });

  it('rejects truncated and inconsistent blobs', () => {
    expect(() => parseRpmHeader(Buffer.alloc(4))).toThrow(FormatError);
    const blob = header({ [TAG.NAME]: 'x' });
    expect(() => parseRpmHeader(blob.subarray(0, blob.length - 2))).toThrow(FormatError);
    const bad = Buffer.from(blob);
    bad.writeInt32BE(999, 16);
    expect(() => parseRpmHeader(bad)).toThrow(/outside the data store/);
  });
});

describe('rpmdb.sqlite', () => {
  it('reports installed RPMs as pkg:rpm with family CPEs and skips malformed headers with a note', async () => {
    const root = tree({ 'etc/os-release': 'ID=fedora\nVERSION_ID=33\n' });
    mkdirSync(join(root, 'var/lib/rpm'), { recursive: true });
    const db = new Database(join(root, 'var/lib/rpm/rpmdb.sqlite'));
    db.exec('CREATE TABLE Packages (hnum INTEGER PRIMARY KEY AUTOINCREMENT, blob BLOB NOT NULL)');
    const insert = db.prepare('INSERT INTO Packages (blob) VALUES (?)');
    insert.run(header({ [TAG.NAME]: 'openssl-libs', [TAG.VERSION]: '1.1.1g', [TAG.RELEASE]: '15.fc33', [TAG.EPOCH]: [1], [TAG.ARCH]: 'x86_64', [TAG.LICENSE]: 'OpenSSL', [TAG.VENDOR]: 'Fedora Project', [TAG.REQUIRENAME]: ['rpmlib(CompressedFileNames)', 'libz.so.1()(64bit)'] }));
    insert.run(header({ [TAG.NAME]: 'zlib', [TAG.VERSION]: '1.2.11', [TAG.RELEASE]: '23.fc33', [TAG.ARCH]: 'x86_64', [TAG.PROVIDENAME]: ['libz.so.1()(64bit)', 'zlib'] }));
    insert.run(header({ [TAG.NAME]: 'gpg-pubkey', [TAG.VERSION]: '9570ff31' }));
    insert.run(Buffer.from([0, 0, 0, 9, 0, 0, 0, 0]));
    db.close();
    const ctx = await inventoryOfDirectory(root);
    const openssl = ctx.components.find((c) => c.name === 'openssl-libs')!;
    expect(openssl).toMatchObject({
      version: '1:1.1.1g-15.fc33',
      purl: 'pkg:rpm/fedora/openssl-libs@1:1.1.1g-15.fc33?arch=x86_64',
      cpe: 'cpe:2.3:a:openssl:openssl:1.1.1g:*:*:*:*:*:*:*',
      supplier: 'Fedora Project',
      licenses: ['OpenSSL'],
    });
    expect(openssl.dependsOn).toEqual(['zlib@1.2.11-23.fc33']);
    expect(ctx.components.some((c) => c.name === 'gpg-pubkey')).toBe(false);
    expect(ctx.problems).toContainEqual(expect.objectContaining({ source: 'rpm-db', kind: 'warning', message: '1 malformed RPM header(s) skipped' }));
  });

  it('skips Berkeley DB databases with a reason', async () => {
    const root = tree({ 'var/lib/rpm/Packages': Buffer.alloc(4096, 0x61) });
    const ctx = await inventoryOfDirectory(root);
    expect(ctx.problems).toContainEqual(expect.objectContaining({ source: 'rpm-db', kind: 'skipped', message: expect.stringContaining('Berkeley DB') }));
  });
});
