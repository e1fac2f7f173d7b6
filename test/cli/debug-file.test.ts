// `firmscope scan --debug-file`: an offline scan uses an attached ELF debug file the way a server scan does, so
// the stripped binary's unsafe-function finding names its calling functions; a missing debug file is a clear error.
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { register } from '../../src/cli/scan.js';
import type { ScanResult } from '../../src/engine/types.js';
import { buildElfWithDebug } from '../engine/binaries/debug-inputs.js';
import { runCli, useCliFolder } from '../support/cli.js';
import { needCommands } from '../support/requirements.js';

const haveGcc = needCommands(['gcc', 'objcopy', 'strip'], 'the --debug-file CLI test');

const folder = useCliFolder('fs-cli-debug-');
let dir: string;
beforeEach(() => {
  dir = folder();
});

const unsafeEvidence = (result: ScanResult) =>
  result.findings.filter((f) => f.identifiers.some((i) => i.cwe === 'CWE-676')).flatMap((f) => f.occurrences.map((o) => o.evidence ?? '')).join('\n');

describe.skipIf(!haveGcc)('firmscope scan --debug-file', () => {
  it('names the calling functions of a stripped binary from its debug file', async () => {
    const build = buildElfWithDebug(dir, 'prog', 'gcc', ['-no-pie']);
    const plain = await runCli(register, ['scan', build.stripped, '--no-vulndb', '-q', '-f', 'json']);
    expect(plain.exitCode).toBe(0);
    const without = JSON.parse(plain.stdout) as ScanResult;
    expect(without.binaries?.[0]?.symbols.source).toBe('none');

    const run = await runCli(register, ['scan', build.stripped, '--no-vulndb', '-q', '-f', 'json', '--debug-file', build.debug]);
    expect(run.exitCode).toBe(0);
    const result = JSON.parse(run.stdout) as ScanResult;
    expect(result.binaries?.[0]?.symbols.source).toBe('symtab');
    expect(unsafeEvidence(result)).toMatch(/strcpy .* in \w+/);
    expect(unsafeEvidence(result)).not.toEqual(unsafeEvidence(without));
  });

  it('a missing debug file is an error that names it', async () => {
    const build = buildElfWithDebug(dir, 'prog', 'gcc', []);
    await expect(runCli(register, ['scan', build.stripped, '--no-vulndb', '-q', '--debug-file', join(dir, 'nope.pdb')])).rejects.toThrow(/debug file not found: .*nope\.pdb/);
  });
});
