// The PQC PDF converts with pdftotext (poppler-utils) and contains its summary and tables; table headers wrap only
// at spaces (every header word comes out of pdftotext whole), and a section without rows says so in a sentence.
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanResult } from '../../src/engine/types.js';
import { findReport } from '../../src/reports/index.js';
import { newDocument, table, type Column } from '../../src/reports/pdf-parts.js';
import { PQC_PDF_COLUMNS } from '../../src/reports/pqc-pdf.js';
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

/** The words pdftotext reads from a PDF, each as one token (a word broken across lines comes out as two). */
async function pdfWords(pdf: Buffer, name: string): Promise<string[]> {
  const path = join(dir, `${name}-words.pdf`);
  await writeFile(path, pdf);
  execFileSync('pdftotext', ['-bbox', path, join(dir, `${name}.html`)]);
  return [...(await readFile(join(dir, `${name}.html`), 'utf8')).matchAll(/<word [^>]*>([^<]*)<\/word>/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
}

const headerWords = (columns: Column[]) => columns.flatMap((c) => c.header.split(' '));

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
    // Acceptable algorithms have nothing to migrate to.
    expect(text).toMatch(/SHA-256\s+hash\s+weakened \(Grover\)\s+128\s+2\s+ACCEPTABLE after 2035\s+yes\s+-/);
  });

  it('draws every table header with its words whole', async () => {
    const words = await pdfWords((await findReport('pqc-pdf')!.generate({ result: await generatedScan(join(dir, 'words')), now: NOW })) as Buffer, 'generated');
    for (const [name, columns] of Object.entries(PQC_PDF_COLUMNS)) for (const word of headerWords(columns)) expect(words, `${name}: ${word}`).toContain(word);
  });

  it('shrinks a header that does not fit its column rather than breaking a word', async () => {
    const doc = newDocument({ Title: 'narrow', Subject: 'narrow', CreationDate: NOW });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    const ended = new Promise((resolve) => doc.on('end', resolve));
    const columns = [{ header: 'Recommended migration', width: 0.04 }, { header: 'Compliant', width: 0.03 }, { header: 'Algorithm', width: 0.93 }];
    table(doc, columns, [['-', 'no', 'RC4']]);
    doc.end();
    await ended;
    expect(await pdfWords(Buffer.concat(chunks), 'narrow')).toEqual(expect.arrayContaining(headerWords(columns)));
  });

  it('says so in a sentence where a section has nothing, and draws no empty table', async () => {
    const result = await generatedScan(join(dir, 'empty'));
    const { text } = await pdfText({ ...result, cryptoAssets: [] }, 'empty');
    for (const sentence of ['No cryptographic algorithms were detected in the image.', 'No certificates were found in the image.', 'No private or public keys were found in the image.', 'No evidence to show', 'Algorithms by primitive: nothing to chart.']) expect(text).toContain(sentence);
    for (const header of ['Primitive', 'Quantum class', 'Issuer (CN)', 'Protection', 'Method']) expect(text).not.toContain(header);
  });

  it.skipIf(!haveCorpus())('corpus: lists the Secure Boot certificates with their expiry', async () => {
    const { text } = await pdfText(await corpusScan(), 'corpus');
    expect(text).toContain('Microsoft Corporation KEK CA');
    expect(text).toMatch(/2026-06-24\s+EXPIRED\s+KEK/);
    expect(text).toMatch(/2037-10-25\s+valid/);
    expect(text).toContain('LMS_SHA256_M32_H10');
  });
});
