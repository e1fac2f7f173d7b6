// The PQC PDF converts with pdftotext (poppler-utils) and contains its summary and tables.
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanResult } from '../../src/engine/types.js';
import { findReport } from '../../src/reports/index.js';
import { tempDir } from '../engine/crypto/support.js';
import { NOW, corpusScan, generatedScan, haveCorpus } from './pqc-fixture.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir()));
afterAll(() => cleanup());

async function pdfText(result: ScanResult, name: string): Promise<{ text: string; pages: number; pdf: Buffer }> {
  const pdf = (await findReport('pqc-pdf')!.generate({ result, now: NOW })) as Buffer;
  const path = join(dir, `${name}.pdf`);
  await writeFile(path, pdf);
  const text = execFileSync('pdftotext', ['-layout', path, '-']).toString();
  const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [path]).toString())![1]);
  return { text, pages, pdf };
}

describe('PQC compliance report (PDF)', () => {
  it('is a PDF with a summary page, charts and the algorithm, certificate, key and evidence tables', async () => {
    const { text, pages, pdf } = await pdfText(await generatedScan(join(dir)), 'generated');
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(findReport('pqc-pdf')!.mediaType).toBe('application/pdf');
    expect(pages).toBeGreaterThanOrEqual(2);
    for (const heading of ['Post-Quantum Cryptography Compliance Report', 'Quantum readiness score', 'Algorithms by quantum security class', 'Algorithms by primitive', 'Algorithms', 'Certificates', 'Keys', 'Evidence']) expect(text).toContain(heading);
    // Table rows: algorithm, class, NIST IR 8547 status and migration.
    expect(text).toMatch(/RSA-2048\s+pke\s+vulnerable \(Shor\)\s+112\s+0\s+DEPRECATED after/);
    expect(text).toContain('DISALLOWED after');
    expect(text).toMatch(/ML-KEM-768\s+kem\s+resistant\s+192\s+3\s+ACCEPTABLE after 2035\s+yes/);
    expect(text).toContain('ML-DSA-65 (NIST');
    expect(text).toContain('Firmscope Test Root');
    expect(text).toContain('sha1WithRSAEncryption');
    expect(text).toMatch(/EC P-256 private key \(PEM\)\s+private-key\s+none \(plaintext\)/);
  });

  it.skipIf(!haveCorpus())('corpus: lists the Secure Boot certificates with their expiry', async () => {
    const { text } = await pdfText(await corpusScan(), 'corpus');
    expect(text).toContain('Microsoft Corporation KEK CA');
    expect(text).toMatch(/2026-06-24\s+EXPIRED\s+KEK/);
    expect(text).toMatch(/2037-10-25\s+valid/);
    expect(text).toContain('LMS_SHA256_M32_H10');
  });
});
