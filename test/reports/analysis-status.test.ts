// Every report says whether the analysis behind it was complete, and why not: the findings JSON (a field), the
// findings PDF (a banner, read back with pdftotext), CycloneDX SBOM and CBOM (metadata properties), SPDX (an
// annotation on the image package) and SARIF (error notifications on the run's invocation). Each stays valid
// against its official schema.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanResult, ScanSummary } from '../../src/engine/types.js';
import { findReport } from '../../src/reports/index.js';
import { haveShared } from '../support/shared.js';
import { sarifValidator } from './sarif-schema.js';
import { schemaValidator } from './schema-validate.js';
import { fixedNow, sbomFixture } from './sbom-fixture.js';

const base: ScanSummary = {
  filesExtracted: 1, bytesExtracted: 10, formats: { gzip: 1 }, coverage: 1, problems: { info: 0, warning: 0, error: 0 }, phases: {},
  durationMs: 1, complete: true, incompleteReasons: [],
};
const REASON = 'fw.gz at 0: gzip: truncated stream (unexpected end of file)';
const incomplete: ScanResult = { ...sbomFixture, summary: { ...base, complete: false, incompleteReasons: [REASON], problems: { info: 0, warning: 0, error: 1 } } };
const complete: ScanResult = { ...sbomFixture, summary: base };

const generate = async (id: string, result: ScanResult) => findReport(id)!.generate({ result, now: fixedNow });
const json = async (id: string, result: ScanResult) => JSON.parse(String(await generate(id, result))) as Record<string, any>;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fs-analysis-report-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function pdfText(result: ScanResult, name: string): Promise<string> {
  const path = join(dir, `${name}.pdf`);
  await writeFile(path, (await generate('findings-pdf', result)) as Buffer);
  return execFileSync('pdftotext', [path, '-']).toString().replace(/\s+/g, ' ');
}

describe('reports of an incomplete analysis', () => {
  it('findings JSON has analysis: complete false and the reasons', async () => {
    expect((await json('findings-json', incomplete)).analysis).toEqual({ complete: false, incompleteReasons: [REASON] });
    expect((await json('findings-json', complete)).analysis).toEqual({ complete: true, incompleteReasons: [] });
    expect((await json('findings-json', sbomFixture)).analysis).toBeUndefined(); // unknown for old results: not claimed
  });

  it('the findings PDF shows a banner with the reasons before the counts', async () => {
    const text = await pdfText(incomplete, 'incomplete');
    expect(text).toContain('ANALYSIS INCOMPLETE');
    expect(text).toContain('fw.gz at 0: gzip: truncated stream');
    expect(text.indexOf('ANALYSIS INCOMPLETE')).toBeLessThan(text.indexOf('Executive summary'));
    const clean = await pdfText(complete, 'complete');
    expect(clean).not.toContain('ANALYSIS INCOMPLETE');
    expect(clean).toContain('Analysis complete');
  });

  it('CycloneDX carries firmscope:analysisComplete and one firmscope:analysisIncompleteReason per reason', async () => {
    const doc = await json('sbom-cyclonedx', incomplete);
    expect(doc.metadata.properties).toEqual([
      { name: 'firmscope:analysisComplete', value: 'false' },
      { name: 'firmscope:analysisIncompleteReason', value: REASON },
    ]);
    expect((await json('sbom-cyclonedx', complete)).metadata.properties).toEqual([{ name: 'firmscope:analysisComplete', value: 'true' }]);
    if (haveShared('schemas', 'cyclonedx', 'bom-1.6.schema.json')) expect(schemaValidator('cyclonedx-1.6')(doc)).toEqual([]);
  });

  it('SPDX annotates the image package with "analysis incomplete: …"', async () => {
    const doc = await json('sbom-spdx', incomplete);
    const image = doc.packages.find((p: any) => p.SPDXID === 'SPDXRef-Image');
    expect(image.annotations).toEqual([
      { annotationDate: '2026-01-02T03:04:05Z', annotationType: 'REVIEW', annotator: expect.stringMatching(/^Tool: firmscope-/), comment: `analysis incomplete: ${REASON}` },
    ]);
    if (haveShared('schemas', 'spdx', 'spdx-2.3-schema.json')) expect(schemaValidator('spdx-2.3')(doc)).toEqual([]);
  });

  it('the CBOM carries the same completeness properties as the CycloneDX SBOM', async () => {
    const doc = await json('cbom-cyclonedx', incomplete);
    expect(doc.metadata.properties).toEqual([
      { name: 'firmscope:analysisComplete', value: 'false' },
      { name: 'firmscope:analysisIncompleteReason', value: REASON },
    ]);
    expect((await json('cbom-cyclonedx', complete)).metadata.properties).toEqual([{ name: 'firmscope:analysisComplete', value: 'true' }]);
    expect((await json('cbom-cyclonedx', sbomFixture)).metadata.properties).toBeUndefined();
    if (haveShared('schemas', 'cyclonedx', 'bom-1.6.schema.json')) expect(schemaValidator('cyclonedx-1.6')(doc)).toEqual([]);
  });

  it('SARIF states an incomplete analysis as error notifications of its invocation', async () => {
    const doc = await json('sarif', incomplete);
    const run = doc.runs[0];
    expect(run.invocations).toEqual([{
      executionSuccessful: true,
      toolExecutionNotifications: [{ level: 'error', message: { text: `analysis incomplete: ${REASON}` } }],
    }]);
    expect(run.properties.analysis).toEqual({ complete: false, incompleteReasons: [REASON] });
    expect((await json('sarif', complete)).runs[0].invocations).toEqual([{ executionSuccessful: true }]);
    expect(sarifValidator()(doc)).toEqual([]);
  });
});
