// PQC compliance report, PDF (API: cryptographicMaterialsReport?mode=pqc-compliance&contentType=pdf): a summary
// page with the readiness score and charts, then tables of algorithms (with NIST IR 8547 statuses and
// migrations), certificates, keys, and the evidence behind each algorithm.
import { basename } from 'node:path';
import { STANDARD_SUMMARY, transitionText } from '../engine/crypto/pqc-table.js';
import { barChart, collect, FONT, heading, newDocument, table, type Column, type Doc } from './pdf-parts.js';
import { pqcModel, type PqcModel, type PqcRow } from './pqc-model.js';
import type { ReportGenerator, ReportInput } from './report.js';

const CLASS_LABEL: Record<string, string> = { broken: 'Broken (classical)', 'quantum-vulnerable': 'Quantum-vulnerable (Shor)', weakened: 'Weakened (Grover)', 'quantum-resistant': 'Quantum-resistant' };
const CLASS_SHORT: Record<string, string> = { broken: 'broken', 'quantum-vulnerable': 'vulnerable (Shor)', weakened: 'weakened (Grover)', 'quantum-resistant': 'resistant' };
const CLASS_COLOR: Record<string, string> = { broken: '#8b1e1e', 'quantum-vulnerable': '#d9534f', weakened: '#f0ad4e', 'quantum-resistant': '#3c9d5d' };

const status = (row: PqcRow): string => transitionText(row.transitions);

/** The columns of each table (widths are shares of the page width; headers wrap only at spaces). */
export const PQC_PDF_COLUMNS = {
  summary: [{ header: 'Measure', width: 0.6 }, { header: 'Value', width: 0.4 }],
  algorithms: [
    { header: 'Algorithm', width: 0.11 }, { header: 'Primitive', width: 0.09 }, { header: 'Quantum class', width: 0.14 }, { header: 'Bits', width: 0.05 },
    { header: 'Level', width: 0.05 }, { header: 'NIST IR 8547 status', width: 0.18 }, { header: 'Compliant', width: 0.09 }, { header: 'Recommended migration', width: 0.19 }, { header: 'Where', width: 0.1 },
  ],
  certificates: [{ header: 'Certificate (CN)', width: 0.24 }, { header: 'Issuer (CN)', width: 0.18 }, { header: 'Key', width: 0.09 }, { header: 'Signature', width: 0.19 }, { header: 'Not after', width: 0.09 }, { header: 'Status', width: 0.09 }, { header: 'Where', width: 0.12 }],
  keys: [{ header: 'Key', width: 0.34 }, { header: 'Type', width: 0.12 }, { header: 'Protection', width: 0.2 }, { header: 'Files', width: 0.34 }],
  evidence: [{ header: 'Algorithm', width: 0.16 }, { header: 'File', width: 0.4 }, { header: 'Method', width: 0.14 }, { header: 'Match', width: 0.3 }],
} satisfies Record<string, Column[]>;

function summaryPage(doc: Doc, model: PqcModel): void {
  const s = model.summary;
  doc.font(FONT.bold).fontSize(20).fillColor('#1a1a1a').text('Post-Quantum Cryptography Compliance Report');
  doc.moveDown(0.3).font(FONT.regular).fontSize(10).fillColor('#444444');
  if (model.productName) doc.text(`Product: ${model.productName}`);
  doc.text(`Image: ${model.imageName}`).text(`Generated: ${model.generatedAt}`).text('Columns: Bits = classical security strength; Level = NIST PQC security category (0 = below category 1: broken by a quantum computer, or broken already).').text(`Assessed against ${STANDARD_SUMMARY}`);
  doc.moveDown(0.8).font(FONT.bold).fontSize(30).fillColor(s.score >= 70 ? '#3c9d5d' : s.score >= 40 ? '#f0ad4e' : '#d9534f').text(`${s.score} / 100`, { continued: false });
  doc.font(FONT.regular).fontSize(10).fillColor('#444444').text('Quantum readiness score: share of detected algorithms that stay safe against a quantum adversary (Grover-weakened ones count half).');
  heading(doc, 'Summary');
  table(doc, PQC_PDF_COLUMNS.summary, [
    ['Algorithms and parameter sets detected', String(s.algorithms)],
    ['NIST IR 8547 compliant / not compliant', `${s.compliant} / ${s.notCompliant}`],
    ...Object.entries(s.byClass).map(([c, n]) => [CLASS_LABEL[c]!, String(n)]),
    ['Certificates (expired)', `${s.certificates} (${s.expiredCertificates})`],
    ['Private keys / public keys', `${s.privateKeys} / ${s.publicKeys}`],
    ['Earliest NIST IR 8547 transition', s.earliestTransition ? `${s.earliestTransition.status} after ${s.earliestTransition.year}` : 'none'],
  ], 9);
  barChart(doc, 'Algorithms by quantum security class', Object.entries(s.byClass).map(([c, n]) => ({ label: CLASS_LABEL[c]!, value: n, color: CLASS_COLOR[c]! })));
  const primitives = new Map<string, number>();
  for (const row of model.rows) primitives.set(row.primitive, (primitives.get(row.primitive) ?? 0) + 1);
  barChart(doc, 'Algorithms by primitive', [...primitives].sort((a, b) => b[1] - a[1]).map(([label, value]) => ({ label, value, color: '#4a78a8' })));
}

async function render(model: PqcModel, now: Date): Promise<Buffer> {
  const doc = newDocument({ Title: 'PQC Compliance Report', Subject: model.imageName, CreationDate: now });
  const done = collect(doc);
  summaryPage(doc, model);
  doc.addPage();
  heading(doc, 'Algorithms');
  table(doc, PQC_PDF_COLUMNS.algorithms, model.rows.map((r) => [
    r.name, r.primitive, CLASS_SHORT[r.quantumClass]!, String(r.classicalSecurityLevel), String(r.nistQuantumSecurityLevel), status(r), r.compliant ? 'yes' : 'no',
    r.recommendations.map((m) => `${m.parameter} (${m.security})`).join(', ') || '-', r.component,
  ]), 7.5, 'No cryptographic algorithms were detected in the image.');
  heading(doc, 'Certificates');
  const cn = (name: string): string => /(?:^|, )CN=([^,]+)/.exec(name)?.[1] ?? name;
  table(doc, PQC_PDF_COLUMNS.certificates,
    model.certificates.map((c) => {
      const d = c.details as { subject: string; issuer: string; key: { keyType: string; bits?: number; curve?: string }; signatureAlgorithm: string; notAfter: string; expired: boolean; expiringSoon: boolean; contexts?: Array<Record<string, string>> };
      const where = d.contexts?.map((x) => x.efiVariable ?? x.container ?? '').filter(Boolean).join(', ') || basename(c.paths[0] ?? '');
      return [cn(d.subject), cn(d.issuer), `${d.key.keyType} ${d.key.bits ?? d.key.curve ?? ''}`.trim(), d.signatureAlgorithm, d.notAfter.slice(0, 10), d.expired ? 'EXPIRED' : d.expiringSoon ? 'expiring' : 'valid', where];
    }), 7.5, 'No certificates were found in the image.');
  heading(doc, 'Keys');
  table(doc, PQC_PDF_COLUMNS.keys,
    model.keys.map((k) => {
      const d = k.details as { encrypted?: boolean; weakPassword?: string };
      const protection = k.assetType === 'public-key' ? '-' : d.encrypted ? (d.weakPassword !== undefined ? `weak password "${d.weakPassword}"` : 'encrypted') : 'none (plaintext)';
      return [k.name, k.assetType, protection, k.paths.join(', ')];
    }), 7.5, 'No private or public keys were found in the image.');
  heading(doc, 'Evidence');
  table(doc, PQC_PDF_COLUMNS.evidence,
    model.rows.flatMap((r) => r.evidence.slice(0, 5).map((e) => [r.name, e.offset !== undefined ? `${e.path} @0x${e.offset.toString(16)}` : e.path, e.method, e.match ?? ''])),
    7.5, 'No evidence to show: no algorithms were detected.');
  doc.end();
  return done;
}

export const pqcPdfReport: ReportGenerator = {
  id: 'pqc-pdf',
  aliases: [],
  mediaType: 'application/pdf',
  async generate(input: ReportInput) {
    const now = input.now ?? new Date();
    return render(pqcModel({ ...input, now }), now);
  },
};
