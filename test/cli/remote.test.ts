// The command-line client end to end against a real server started here: login, upload with --wait (in a
// pseudo-terminal, with its progress display), findings as table, plain lines and JSON, the CI gates on two
// versions of an image, every report type (SARIF and CycloneDX XML validated), and clear errors.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, firmscopeCommand, projectRoot } from '../support/cli-process.js';
import { REPORT_TYPES } from '../../src/cli/remote/reports.js';
import { runCli } from '../support/cli.js';
import { needCommands } from '../support/requirements.js';
import { ADMIN, freePort, startTestServer, type TestServer } from '../support/server.js';
import { corpus, haveShared, sharedPath } from '../support/shared.js';
import { cycloneDxXsdErrors } from '../reports/cyclonedx-xsd.js';
import { sarifValidator } from '../reports/sarif-schema.js';

const run = promisify(execFile);
const haveTools = needCommands(['script', 'tar', 'xmllint'], 'the command-line client end to end');
const commands = async (...names: string[]) => {
  const modules = await Promise.all(names.map((n) => import(`../../src/cli/${n}.ts`) as Promise<{ register: (p: Command) => void }>));
  return (program: Command) => modules.forEach((m) => m.register(program));
};

describe.runIf(haveTools && haveShared('corpus', 'OVMF_VARS.secboot.fd') && haveShared('corpus', 'ssl.key'))('firmscope as a client of a server', () => {
  let t: TestServer;
  let dir: string;
  let cli: (args: string[]) => ReturnType<typeof runCli>;
  const env: Record<string, string | undefined> = {};
  /** `firmscope ARGS…` in a pseudo-terminal of 120 columns (script -q); its exit code and what the terminal showed. */
  const inTerminal = (args: string[]) => {
    const command = [process.execPath, ...firmscopeCommand(), ...args].map((a) => `'${a}'`).join(' ');
    return run('script', ['-q', '-e', '-c', `stty cols 120 rows 40; ${command}`, '/dev/null'], { cwd: projectRoot, env: childEnv(env), maxBuffer: 16 << 20 })
      .then((r) => ({ code: 0, stdout: r.stdout }), (e: { code: number; stdout: string }) => e);
  };

  beforeAll(async () => {
    t = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'firmscope-remote-'));
    // Two versions of an image: v2 adds three expired Secure Boot certificates (medium) to v1's private key (high).
    await run('tar', ['cf', join(dir, 'v1.tar'), '-C', sharedPath('corpus'), 'ssl.key']);
    await run('tar', ['cf', join(dir, 'v2.tar'), '-C', sharedPath('corpus'), 'ssl.key', 'OVMF_VARS.secboot.fd']);
    Object.assign(env, { FIRMSCOPE_CONFIG_DIR: join(dir, 'config'), FIRMSCOPE_URL: undefined, FIRMSCOPE_CLIENT_ID: undefined, FIRMSCOPE_CLIENT_SECRET: undefined });
    for (const [k, v] of Object.entries(env)) v === undefined ? delete process.env[k] : (process.env[k] = v);
    const register = await commands('login', 'products', 'images', 'upload', 'scans', 'findings', 'report');
    cli = (args) => runCli(register, args);
    process.env.FIRMSCOPE_PASSWORD = ADMIN.password;
    const login = await cli(['login', '--url', t.base, '--email', ADMIN.email]);
    delete process.env.FIRMSCOPE_PASSWORD;
    expect(login.stderr).toContain(`signed in to ${t.base}`);
    expect(statSync(join(dir, 'config', 'credentials.json')).mode & 0o777).toBe(0o600);
    expect((await cli(['products', 'create', 'Router'])).stdout).toMatch(/^[0-9A-Z]{26}\n$/);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('uploads with --wait in a terminal: progress bar, spinner, then the gate fails with exit 2', async () => {
    const pty = await inTerminal(['upload', join(dir, 'v1.tar'), '--product', 'Router', '--name', 'v1', '--wait', '--fail-on', 'high']);
    expect(pty.code).toBe(2);
    expect(pty.stdout).toMatch(/uploading .*100% \| 10\.2 kB\/10\.2 kB/);
    expect(pty.stdout).toContain('scan completed');
    expect(pty.stdout).toMatch(/gate failed \(--fail-on high\): 1 finding \(1 high\)/);
    expect(pty.stdout).toContain('private-key-in-image');
    // Findings in a terminal: a table with borders and the severity in colour.
    const table = await inTerminal(['findings', '--image', 'v1']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/┌─+┬/);
    expect(table.stdout).toContain('\u001b[31mhigh\u001b[39m');
  }, 60_000);

  it('gates on new findings against the previous image of the product', async () => {
    // With a debug file (any ELF): attached before the scan starts, so the one scan uses it.
    const v2 = await cli(['upload', join(dir, 'v2.tar'), '--product', 'Router', '--name', 'v2', '--version', '2', '--symbols', '/bin/true', '--wait', '--fail-on', 'high', '--fail-on-new']);
    expect(v2.stderr).toContain('attached true');
    expect(v2.stderr).toContain("counted against the previous image 'v1'");
    expect(v2.exitCode).toBe(0);
    const medium = await cli(['findings', '--image', 'v2', '--fail-on', 'medium', '--fail-on-new']);
    expect(medium.exitCode).toBe(2);
    expect(medium.stderr).toMatch(/gate failed \(--fail-on medium --fail-on-new\): 3 findings \(3 medium\)/);
    expect((await cli(['findings', '--image', 'v2', '--fail-on', 'critical', '--fail-on-kev', '--fail-on-incomplete'])).exitCode).toBe(0);
  }, 60_000);

  it('lists findings as plain lines off a terminal, as JSON, and compared with a baseline', async () => {
    const plain = await cli(['findings', '--image', 'v2']);
    const [header, ...lines] = plain.stdout.trimEnd().split('\n');
    expect(header).toBe('severity\tid\ttype\tcomponent\tcvss\tkev\tstatus');
    expect(lines.map((l) => l.split('\t')[1]).sort()).toEqual(['expired-certificate-used-for-trust', 'expired-certificate-used-for-trust', 'expired-certificate-used-for-trust', 'private-key-in-image', 'weak-key-size']);
    const json = JSON.parse((await cli(['findings', '--image', 'v2', '--severity', 'high', '--output', 'json'])).stdout) as Array<{ pname: string }>;
    expect(json.map((f) => f.pname)).toEqual(['private-key-in-image']);
    const compared = await cli(['findings', '--image', 'v2', '--compare', 'v1', '--output', 'json']);
    const statuses = (JSON.parse(compared.stdout) as Array<{ comparison: { status: string } }>).map((r) => r.comparison.status).sort();
    expect(statuses).toEqual(['new', 'new', 'new', 'unchanged', 'unchanged']);
    const scans = await cli(['scans', 'list', '--state', 'completed']);
    expect(scans.stdout.split('\n').filter((l) => l.includes('\tcompleted\t'))).toHaveLength(2);
    const images = JSON.parse((await cli(['images', 'list', '--product', 'Router', '--output', 'json'])).stdout) as Array<{ name: string; scans: unknown[]; files: Array<{ filename: string }> }>;
    const v2 = images.find((i) => i.name === 'v2')!;
    expect(v2.files.map((f) => f.filename)).toEqual(['true']);
    expect(v2.scans).toHaveLength(1);
  }, 60_000);

  it('downloads every report type; SARIF validates against the SARIF 2.1.0 schema and the XML SBOM against the XSD', async () => {
    const cases: Array<[string, string | undefined, (b: Buffer) => void]> = [
      ['findings', 'json', (b) => expect(JSON.parse(b.toString())).toBeTruthy()],
      ['findings', 'csv', (b) => expect(b.toString()).toMatch(/private-key-in-image/)],
      ['findings', 'pdf', (b) => expect(b.subarray(0, 5).toString()).toBe('%PDF-')],
      ['findings', 'html', (b) => expect(b.toString()).toMatch(/^<!doctype html>[\s\S]*private-key-in-image/i)],
      ['sbom-cyclonedx', undefined, (b) => expect(JSON.parse(b.toString())).toMatchObject({ bomFormat: 'CycloneDX' })],
      ['sbom-cyclonedx', 'xml', (b) => expect(cycloneDxXsdErrors(b.toString())).toEqual([])],
      ['sbom-spdx', undefined, (b) => expect(JSON.parse(b.toString())).toMatchObject({ spdxVersion: 'SPDX-2.3' })],
      ['pqc', 'json', (b) => expect(JSON.parse(b.toString())).toHaveProperty('findings')],
      ['pqc', 'pdf', (b) => expect(b.subarray(0, 5).toString()).toBe('%PDF-')],
      ['cbom', undefined, (b) => expect(JSON.parse(b.toString())).toMatchObject({ bomFormat: 'CycloneDX' })],
      ['vex-openvex', undefined, (b) => expect(JSON.parse(b.toString())).toHaveProperty('statements')],
      ['vex-cyclonedx', undefined, (b) => expect(JSON.parse(b.toString())).toMatchObject({ bomFormat: 'CycloneDX' })],
      ['sarif', undefined, (b) => {
        const log = JSON.parse(b.toString()) as { runs: Array<{ results: Array<{ ruleId: string; level: string; locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }> }> }> };
        expect(sarifValidator(JSON.parse(readFileSync(sharedPath('schemas', 'sarif', 'sarif-schema-2.1.0.json'), 'utf8')))(log)).toEqual([]);
        const key = log.runs[0]!.results.find((r) => r.ruleId === 'private-key-in-image')!;
        expect(key.level).toBe('error');
        expect(key.locations[0]!.physicalLocation.artifactLocation.uri).toMatch(/ssl\.key$/);
      }],
    ];
    // every type and format the command offers is downloaded here
    const offered = Object.entries(REPORT_TYPES).flatMap(([type, formats]) => formats.map((f) => `${type}:${f}`)).sort();
    expect([...new Set(cases.map(([type, format]) => `${type}:${format ?? REPORT_TYPES[type]![0]}`))].sort()).toEqual(offered);
    for (const [type, format, check] of cases) {
      const file = join(dir, `${type}.${format ?? 'default'}`);
      const answer = await cli(['report', '--image', 'v2', '--type', type, ...(format ? ['--format', format] : []), '-o', file]);
      expect(answer.exitCode, `${type} ${format}`).toBe(0);
      check(readFileSync(file));
    }
    await expect(cli(['report', '--image', 'v2', '--type', 'sbom-spdx', '--format', 'xml'])).rejects.toThrow('the sbom-spdx report comes as json, not xml');
  }, 60_000);

  it('says plainly what is wrong: unreachable server, wrong URL, bad password, missing file, no session', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    await expect(cli(['products', 'list', '--url', closed, '--client-id', 'x', '--client-secret', 'y'])).rejects.toThrow(`cannot reach the Firmscope server at ${closed} (ECONNREFUSED)`);
    await expect(cli(['products', 'list', '--url', `${t.base}/nothing-here`, '--client-id', 'x', '--client-secret', 'y'])).rejects.toThrow(/does not look like a Firmscope server/);
    await expect(cli(['products', 'list', '--url', t.base, '--client-id', 'x', '--client-secret', 'y'])).rejects.toThrow(/sign-in refused .*Invalid client credentials/);
    await expect(cli(['upload', join(dir, 'nope.bin'), '--product', 'Router', '--name', 'x'])).rejects.toThrow(`file not found: ${join(dir, 'nope.bin')}`);
    await expect(cli(['images', 'list', '--product', 'Nope'])).rejects.toThrow("no product 'Nope' (products: Router)");
    // An expired access token is refreshed (and the new one cached); an expired refresh token asks for a login.
    const path = join(dir, 'config', 'credentials.json');
    const session = JSON.parse(readFileSync(path, 'utf8')) as { accessToken: string; expiresAt: number; refreshExpiresAt: number };
    writeFileSync(path, JSON.stringify({ ...session, expiresAt: 0 }));
    expect((await cli(['products', 'list'])).stdout).toContain('Router');
    const refreshed = JSON.parse(readFileSync(path, 'utf8')) as typeof session;
    expect(refreshed.expiresAt).toBeGreaterThan(Date.now());
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeFileSync(path, JSON.stringify({ ...refreshed, expiresAt: 0, refreshExpiresAt: 0 }));
    await expect(cli(['products', 'list'])).rejects.toThrow(/your session on .* has expired: run `firmscope login/);
    writeFileSync(path, '{}');
    await expect(cli(['products', 'list'])).rejects.toThrow(/no server: run `firmscope login/);
  }, 30_000);
});
