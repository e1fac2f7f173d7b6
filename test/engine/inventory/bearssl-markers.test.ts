// BearSSL linked statically (issue #14): real programs built here from Debian's libbearssl.a (libbearssl-dev, in
// .ci/apt-packages) are recognised by BearSSL's constant tables; the other crypto libraries of this machine and
// random data are not; on the shared library the tables and the file name make one component.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileIndex } from '../../../src/engine/file-index.js';
import { BEARSSL_MARKERS, bearSslMarkersIdentifier } from '../../../src/engine/inventory/bearssl-markers.identifier.js';
import { CHUNK_SIZE, createFileView } from '../../../src/engine/inventory/file-view.js';
import type { Candidate, IdentifierContext } from '../../../src/engine/inventory/identifier.js';
import { needCommands, needSystemFile } from '../../support/requirements.js';
import { seededRandom } from '../../support/seeded-random.js';
import { inventoryOfDirectory, singleFileIndex } from './support.js';

const LIBDIRS = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu'];
const archive = needSystemFile(LIBDIRS.map((d) => `${d}/libbearssl.a`), 'libbearssl-dev', 'the BearSSL static-link tests');
const shared = needSystemFile(LIBDIRS.map((d) => `${d}/libbearssl.so.0.6`), 'libbearssl-dev', 'the BearSSL shared-library merge test');
const tools = needCommands(['gcc', 'objcopy'], 'the BearSSL static-link tests');
const libcrypto = needSystemFile(LIBDIRS.map((d) => `${d}/libcrypto.so.3`), 'openssl', 'the BearSSL decoy tests');

/** A TLS client (handshake and X.509 validation), a TLS server (handshake only), an X.509 decoder (no TLS). */
const PROGRAMS: Record<string, string> = {
  client: `#include <bearssl.h>
int main(int argc, char **argv) {
	static br_ssl_client_context sc;
	static br_x509_minimal_context xc;
	br_ssl_client_init_full(&sc, &xc, NULL, 0);
	return br_ssl_client_reset(&sc, argc > 1 ? argv[1] : "example.com", 0) ? 0 : 1;
}
`,
  server: `#include <bearssl.h>
int main(void) {
	static br_ssl_server_context sc;
	static br_rsa_private_key sk;
	br_ssl_server_init_full_rsa(&sc, NULL, 0, &sk);
	return br_ssl_server_reset(&sc) ? 0 : 1;
}
`,
  decoder: `#include <bearssl.h>
int main(int argc, char **argv) {
	static br_x509_decoder_context dc;
	br_x509_decoder_init(&dc, 0, 0);
	br_x509_decoder_push(&dc, argv[0], 1);
	return br_x509_decoder_last_error(&dc);
}
`,
};

const ctx = (): IdentifierContext => ({ index: new FileIndex('/nonexistent', []), binaries: new Map(), containers: new Set(), note: () => {} });

/** Runs the identifier on the file `path` as a one-file index reads it (chunked past CHUNK_SIZE). */
async function identifyFile(path: string): Promise<Candidate[]> {
  const size = readFileSync(path).length;
  const index = singleFileIndex(join(path, '..'), basename(path), size);
  const node = index.files()[0]!;
  const view = createFileView(index, node, await index.readRange(node, 0, 4096));
  return bearSslMarkersIdentifier.identify(view, ctx());
}

/** The names of the tables an evidence text lists. */
const tablesIn = (c: Candidate): string[] => BEARSSL_MARKERS.map((m) => m.name).filter((n) => (c.evidence.match ?? '').includes(`${n} (`));

let root = '';
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'bearssl-'));
  if (!archive || !tools) return;
  for (const [name, source] of Object.entries(PROGRAMS)) {
    writeFileSync(join(root, `${name}.c`), source);
    // Static BearSSL, dynamic libc: how a firmware program usually carries it.
    execFileSync('gcc', ['-O2', '-o', name, `${name}.c`, archive], { cwd: root, stdio: 'pipe' });
  }
  // The client's code and data without an ELF header, as in a raw firmware image.
  execFileSync('objcopy', ['-O', 'binary', 'client', 'client.raw'], { cwd: root, stdio: 'pipe' });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('BearSSL markers', () => {
  it('are long enough never to occur by chance, and distinct', () => {
    for (const m of BEARSSL_MARKERS) expect(m.bytes.length, m.name).toBeGreaterThanOrEqual(32);
    expect(new Set(BEARSSL_MARKERS.map((m) => m.bytes.toString('hex'))).size).toBe(BEARSSL_MARKERS.length);
  });

  it.skipIf(!archive)("are all in Debian's libbearssl.a (0.6)", () => {
    const bytes = readFileSync(archive!);
    for (const m of BEARSSL_MARKERS) expect(bytes.includes(m.bytes), m.name).toBe(true);
  });

  it.skipIf(!archive || !tools)('find BearSSL in programs linked statically with libbearssl.a, by the tables each one links', async () => {
    const expected: Record<string, string[]> = {
      client: ['cipher-suite-def', 'month-to-days', 'rsa-oids'],
      server: ['cipher-suite-def'],
      decoder: ['month-to-days', 'rsa-oids'],
    };
    for (const [name, tables] of Object.entries(expected)) {
      const found = await identifyFile(join(root, name));
      expect(found, name).toHaveLength(1);
      const [c] = found;
      expect(c).toMatchObject({ key: 'bearssl', name: 'bearssl', type: 'library', primaryFile: true, purl: 'pkg:generic/bearssl' });
      expect(c.evidence.method).toBe('bearssl-markers');
      expect(tablesIn(c), name).toEqual(tables);
      // presence only: no version, and so no CPE (it would match every release)
      expect(c.version).toBeUndefined();
      expect(c.cpe).toBeUndefined();
      const bytes = readFileSync(join(root, name));
      const first = BEARSSL_MARKERS.filter((m) => tables.includes(m.name)).map((m) => bytes.indexOf(m.bytes));
      expect(c.evidence.offset).toBe(Math.min(...first));
    }
  });

  it.skipIf(!archive || !tools)('find BearSSL in raw firmware data (no ELF header)', async () => {
    const [c] = await identifyFile(join(root, 'client.raw'));
    expect(c?.key).toBe('bearssl');
    expect(tablesIn(c!)).toEqual(['cipher-suite-def', 'month-to-days', 'rsa-oids']);
  });

  it.skipIf(!archive || !tools)('reports a statically linked program as one BearSSL component without a version', async () => {
    const dir = join(root, 'static');
    mkdirSync(join(dir, 'usr/bin'), { recursive: true });
    copyFileSync(join(root, 'client'), join(dir, 'usr/bin/tls-client'));
    const { components } = await inventoryOfDirectory(dir);
    const bearssl = components.filter((c) => c.name === 'bearssl');
    expect(bearssl).toHaveLength(1);
    expect(bearssl[0]).toMatchObject({ paths: ['usr/bin/tls-client'], foundBy: ['bearssl-markers'] });
    expect(bearssl[0].version).toBeUndefined();
    expect(bearssl[0].cpe).toBeUndefined();
  });

  it.skipIf(!shared)('merge with the library file name into one component on libbearssl.so.0.6', async () => {
    const dir = join(root, 'shared');
    mkdirSync(join(dir, 'usr/lib'), { recursive: true });
    copyFileSync(shared!, join(dir, 'usr/lib/libbearssl.so.0.6'));
    const { components, problems } = await inventoryOfDirectory(dir);
    const bearssl = components.filter((c) => c.name === 'bearssl');
    expect(bearssl).toHaveLength(1);
    expect(bearssl[0]).toMatchObject({ version: '0.6', cpe: 'cpe:2.3:a:bearssl:bearssl:0.6:*:*:*:*:*:*:*', paths: ['usr/lib/libbearssl.so.0.6'] });
    expect(bearssl[0].foundBy.sort()).toEqual(['bearssl-markers', 'elf-metadata']);
    expect(bearssl[0].evidence.map((e) => e.method)).toEqual(expect.arrayContaining(['library-file-name', 'bearssl-markers']));
    expect(problems.filter((p) => p.message.includes('bearssl'))).toEqual([]);
  });

  it.skipIf(!libcrypto)('find nothing in the other crypto libraries of this machine (OpenSSL, GnuTLS, Nettle, libgcrypt, mbed TLS, wolfSSL, ...)', async () => {
    const names = /^lib(?:crypto|ssl|gnutls|nettle|hogweed|gcrypt|mbedcrypto|mbedtls|mbedx509|wolfssl|nss3|sodium|tomcrypt)\.(?:so\.[\d.]+|a)$/;
    const libraries = LIBDIRS.filter(existsSync).flatMap((d) => readdirSync(d).filter((n) => names.test(n)).map((n) => join(d, n)));
    expect(libraries).toContain(libcrypto);
    for (const path of libraries) expect(await identifyFile(path), path).toEqual([]);
  });

  it('find nothing in random data, and find a table across the boundary of two chunks', async () => {
    const random = seededRandom(14);
    const data = Buffer.alloc(CHUNK_SIZE + (1 << 20));
    for (let i = 0; i < data.length; i += 4) data.writeUInt32LE(Math.floor(random.next() * 2 ** 32), i);
    writeFileSync(join(root, 'random.bin'), data);
    expect(await identifyFile(join(root, 'random.bin'))).toEqual([]);
    // the second chunk starts CHUNK_OVERLAP bytes before CHUNK_SIZE: a table ending past CHUNK_SIZE is whole only there
    const marker = BEARSSL_MARKERS[0]!;
    const at = CHUNK_SIZE - 20;
    marker.bytes.copy(data, at);
    writeFileSync(join(root, 'straddle.bin'), data);
    const [c] = await identifyFile(join(root, 'straddle.bin'));
    expect(c?.evidence.offset).toBe(at);
    expect(tablesIn(c!)).toEqual([marker.name]);
  });
});
