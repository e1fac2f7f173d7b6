// Findings report, PDF (API: GET images/{i}?contentType=pdf, findingsReport:pdf): a summary page, then each
// finding with its status, scores, component, locations, description and recommended action.
import PDFDocument from 'pdfkit';
import type { AnalysisStatus } from './analysis-status.js';
import { findingsModel, type FindingsModel } from './findings-model.js';
import { heading, table } from './pqc-pdf-parts.js';
import type { ReportFinding, ReportGenerator } from './report.js';

type Doc = InstanceType<typeof PDFDocument>;
const SEVERITY_COLOR: Record<string, string> = { critical: '#8b1e1e', high: '#d9534f', medium: '#f0ad4e', low: '#4a78a8', informational: '#777777' };

function summary(doc: Doc, model: FindingsModel): void {
  doc.font('Helvetica-Bold').fontSize(20).fillColor('#1a1a1a').text('Firmware Findings Report');
  doc.moveDown(0.3).font('Helvetica').fontSize(10).fillColor('#444444');
  if (model.product) doc.text(`Product: ${model.product.name}`);
  doc.text(`Image: ${model.image.name}${model.image.version ? ` ${model.image.version}` : ''} (${model.image.fileName}, ${model.image.type})`);
  doc.text(`SHA-256: ${model.image.sha256}`);
  if (model.scan) doc.text(`Scan: ${model.scan.id} of ${model.scan.createTime}, engine ${model.scan.engineVersion}`);
  doc.text(`Generated: ${model.generatedAt}`);
  if (model.analysis) analysisBanner(doc, model.analysis);
  heading(doc, 'Summary');
  const s = model.summary;
  table(doc, [{ header: 'Measure', width: 0.6 }, { header: 'Count', width: 0.4 }], [
    ['Findings', String(s.total)],
    ...Object.entries(s.bySeverity).map(([k, n]) => [`Severity ${k}`, String(n)]),
    ...Object.entries(s.byType).map(([k, n]) => [`Type ${k}`, String(n)]),
    ...Object.entries(s.byIssueStatus).map(([k, n]) => [`Status ${k}`, String(n)]),
    ['Known exploited (CISA KEV)', String(s.kev)],
  ], 9);
  if (model.findings.length > 0) {
    heading(doc, 'Findings overview');
    table(doc, [
      { header: 'Severity', width: 0.1 }, { header: 'Finding', width: 0.2 }, { header: 'Type', width: 0.17 }, { header: 'CVSS', width: 0.06 },
      { header: 'KEV', width: 0.05 }, { header: 'Component', width: 0.2 }, { header: 'Status', width: 0.1 }, { header: 'Fixed in', width: 0.12 },
    ], model.findings.map((f) => [
      f.severity, f.pname, f.findingType, f.cvssLatestBaseScore?.toFixed(1) ?? '-', f.isKev ? 'yes' : '', f.component ? `${f.component.name} ${f.component.version ?? ''}`.trim() : '-',
      f.issueStatus, f.knownFixedVersion ?? '-',
    ]));
  }
}

/** A complete analysis is one line; an incomplete one is a red box with every reason, before any count. */
function analysisBanner(doc: Doc, analysis: AnalysisStatus): void {
  doc.moveDown(0.5);
  if (analysis.complete) {
    doc.font('Helvetica').fontSize(10).fillColor('#2e6b2e').text('Analysis complete: every part of the image was read.');
    return;
  }
  const x = doc.page.margins.left;
  const width = doc.page.width - x - doc.page.margins.right;
  const top = doc.y;
  const body = `Part of the image could not be analysed; findings and components from that part are missing, so the counts below are a lower bound. Reasons: ${analysis.incompleteReasons.join('; ')}`;
  doc.font('Helvetica').fontSize(9);
  const height = doc.heightOfString(body, { width: width - 16 }) + 30;
  doc.rect(x, top, width, height).fillAndStroke('#fbeaea', '#b52a2a');
  doc.font('Helvetica-Bold').fontSize(12).fillColor('#b52a2a').text('ANALYSIS INCOMPLETE', x + 8, top + 6, { width: width - 16 });
  doc.font('Helvetica').fontSize(9).fillColor('#1a1a1a').text(body, x + 8, doc.y + 2, { width: width - 16 });
  doc.x = x;
  doc.y = top + height + 4;
}

function detail(doc: Doc, f: ReportFinding): void {
  if (doc.y > doc.page.height - doc.page.margins.bottom - 120) doc.addPage();
  doc.moveDown(0.6).font('Helvetica-Bold').fontSize(11).fillColor(SEVERITY_COLOR[f.severity] ?? '#000000').text(`${f.severity.toUpperCase()}  ${f.pname}`);
  doc.font('Helvetica').fontSize(9).fillColor('#1a1a1a').text(f.title ?? f.name);
  const facts = [
    `Type: ${f.findingType}`, `Status: ${f.issueStatus}`,
    f.cvssLatestBaseScore !== undefined ? `CVSS: ${f.cvssLatestBaseScore}` : '', f.epss ? `EPSS: ${(f.epss.probability * 100).toFixed(2)}%` : '', f.isKev ? 'CISA KEV' : '',
    f.component ? `Component: ${f.component.name} ${f.component.version ?? ''}`.trim() : '', f.knownFixedVersion ? `Fixed in: ${f.knownFixedVersion}` : '',
  ].filter(Boolean);
  doc.fillColor('#444444').text(facts.join('   '));
  const ids = f.identifiers.flatMap((i) => Object.values(i)).filter(Boolean);
  if (ids.length) doc.text(`Identifiers: ${ids.join(', ')}`);
  if (f.occurrences.length) doc.text(`Found at: ${f.occurrences.slice(0, 10).map((o) => o.path + (o.offset !== undefined ? `@${o.offset}` : '')).join(', ')}${f.occurrences.length > 10 ? ` and ${f.occurrences.length - 10} more` : ''}`);
  if (f.description) doc.fillColor('#1a1a1a').text(f.description.slice(0, 1500));
  if (f.recommendedAction) doc.fillColor('#1a1a1a').text(`Recommended action: ${f.recommendedAction}`);
}

export const findingsPdfReport: ReportGenerator = {
  id: 'findings-pdf',
  aliases: ['findings-pdf'],
  mediaType: 'application/pdf',
  async generate(input) {
    const model = findingsModel(input);
    const now = input.now ?? new Date();
    const doc = new PDFDocument({ size: 'A4', margin: 40, info: { Title: 'Firmware Findings Report', Subject: model.image.name, Creator: 'Firmscope', CreationDate: now } });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    const done = new Promise<void>((resolve, reject) => {
      doc.on('end', resolve);
      doc.on('error', reject);
    });
    summary(doc, model);
    if (model.findings.length > 0) {
      doc.addPage();
      heading(doc, 'Findings in detail');
      for (const f of model.findings) detail(doc, f);
    } else {
      const scope = model.analysis && !model.analysis.complete ? ' in the parts of the image it could read' : '';
      doc.moveDown().font('Helvetica').fontSize(10).fillColor('#1a1a1a').text(`The scan reported no findings${scope}.`);
    }
    doc.end();
    await done;
    return Buffer.concat(chunks);
  },
};
