// The findings PDF's first two pages: the cover (what was analysed, the overall risk rating, the contents) and the
// one-page executive summary (severity tiles and chart, what to fix first, the top risks, triage, changes).
import { SEVERITIES, type Severity } from '../engine/types.js';
import { componentLabel, HIGH_EPSS, type FindingsDigest } from './findings-digest.js';
import type { FindingsModel } from './findings-model.js';
import { banner, ensureSpace, facts, FONT, heading, MUTED, paragraph, table, TEXT, tiles, usableWidth, type Doc } from './pdf-parts.js';
import { byteSize, FINDING_TYPE_LABEL, FINDING_TYPES, humanDate, plural, SEVERITY_COLOR, SEVERITY_LABEL, STATUS_LABEL } from './report-labels.js';
import type { ReportFinding } from './report.js';

export const RATING_COLOR: Record<string, string> = { Critical: SEVERITY_COLOR.critical, High: SEVERITY_COLOR.high, Medium: SEVERITY_COLOR.medium, Low: SEVERITY_COLOR.low, None: '#2e6b2e' };

export function imageTitle(model: FindingsModel): string {
  return `${model.image.name}${model.image.version ? ` ${model.image.version}` : ''}`;
}

export function incompleteText(model: FindingsModel): string | undefined {
  if (!model.analysis || model.analysis.complete) return undefined;
  return `Part of the image could not be analysed; findings and components from that part are missing, so the counts in this report are a lower bound. Reasons: ${model.analysis.incompleteReasons.join('; ')}.`;
}

/** The cover; returns the y at which the contents are drawn once page numbers are known. */
export function cover(doc: Doc, model: FindingsModel, digest: FindingsDigest): number {
  doc.font(FONT.bold).fontSize(24).fillColor(TEXT).text('Firmware Security Assessment');
  doc.font(FONT.regular).fontSize(13).fillColor(MUTED).text(model.product ? `${model.product.name} — ${imageTitle(model)}` : imageTitle(model)).moveDown(1);
  const scanned = model.scan?.createTime;
  facts(doc, [
    ...(model.product ? [['Product', model.product.name] as [string, string]] : []),
    ['Image', imageTitle(model)],
    ...(model.image.uploadTime ? [['Uploaded', humanDate(model.image.uploadTime)] as [string, string]] : []),
    ['Scanned', scanned ? humanDate(scanned) : `${humanDate(model.generatedAt)} (offline scan)`],
    ['File', `${model.image.fileName} (${model.image.type})`],
    ['Size', byteSize(model.image.size)],
    ['SHA-256', model.image.sha256],
    ['Engine', `Firmscope ${model.engineVersion}`],
    ['Report generated', humanDate(model.generatedAt)],
  ]);
  doc.moveDown(0.8);
  const color = RATING_COLOR[digest.rating.level]!;
  const top = doc.y;
  const x = doc.page.margins.left;
  doc.font(FONT.regular).fontSize(10);
  const height = doc.heightOfString(digest.rating.reason, { width: usableWidth(doc) - 150 }) + 34;
  doc.rect(x, top, usableWidth(doc), height).fill('#f4f5f7');
  doc.rect(x, top, 130, height).fill(color);
  doc.font(FONT.regular).fontSize(9).fillColor('#ffffff').text('Overall risk', x, top + 8, { width: 130, align: 'center' });
  doc.font(FONT.bold).fontSize(20).fillColor('#ffffff').text(digest.rating.level, x, top + 20, { width: 130, align: 'center' });
  doc.font(FONT.bold).fontSize(10).fillColor(TEXT).text(`${plural(digest.open, 'open finding')} of ${model.summary.total}`, x + 142, top + 8, { width: usableWidth(doc) - 150 });
  doc.font(FONT.regular).fontSize(10).fillColor(TEXT).text(digest.rating.reason, x + 142, doc.y + 2, { width: usableWidth(doc) - 150 });
  doc.x = x;
  doc.y = top + height + 10;
  const incomplete = incompleteText(model);
  if (incomplete) banner(doc, 'ANALYSIS INCOMPLETE', incomplete);
  heading(doc, 'Contents', 12);
  return doc.y;
}

/** One stacked bar per finding type, split by severity, with a legend. */
function typeChart(doc: Doc, model: FindingsModel): void {
  const left = doc.page.margins.left;
  const labelWidth = 150;
  const width = usableWidth(doc) - labelWidth - 40;
  const counts = FINDING_TYPES.map((t) => ({ type: t, bySeverity: SEVERITIES.map((s) => model.findings.filter((f) => f.findingType === t && f.severity === s).length) }));
  const max = Math.max(1, ...counts.map((c) => c.bySeverity.reduce((a, b) => a + b, 0)));
  ensureSpace(doc, 80);
  doc.font(FONT.bold).fontSize(10).fillColor(TEXT).text('Findings by type and severity', left).moveDown(0.3);
  for (const c of counts) {
    const y = doc.y;
    doc.font(FONT.regular).fontSize(8.5).fillColor(TEXT).text(FINDING_TYPE_LABEL[c.type], left, y + 2, { width: labelWidth - 6 });
    let x = left + labelWidth;
    c.bySeverity.forEach((n, i) => {
      const w = (n / max) * width;
      if (w > 0) doc.rect(x, y, Math.max(w, 1.5), 12).fill(SEVERITY_COLOR[SEVERITIES[i]!]);
      x += w;
    });
    doc.fillColor(TEXT).text(String(c.bySeverity.reduce((a, b) => a + b, 0)), x + 4, y + 2);
    doc.x = left;
    doc.y = y + 17;
  }
  let x = left + labelWidth;
  const y = doc.y;
  for (const s of SEVERITIES) {
    doc.rect(x, y + 1, 8, 8).fill(SEVERITY_COLOR[s]);
    doc.font(FONT.regular).fontSize(7.5).fillColor(TEXT).text(SEVERITY_LABEL[s], x + 11, y, { lineBreak: false });
    x += 22 + doc.widthOfString(SEVERITY_LABEL[s]);
  }
  doc.x = left;
  doc.y = y + 14;
}

const severityCell = (s: Severity) => ({ text: SEVERITY_LABEL[s], color: SEVERITY_COLOR[s], bold: true });

function urgency(f: ReportFinding): string {
  if (f.isKev) return 'Known exploited (CISA KEV)';
  return `EPSS ${((f.epss?.probability ?? 0) * 100).toFixed(1)}% chance of exploitation within 30 days`;
}

export function executiveSummary(doc: Doc, model: FindingsModel, digest: FindingsDigest): void {
  heading(doc, 'Executive summary', 15);
  paragraph(doc, `Overall risk: ${digest.rating.level}. ${digest.rating.reason}`, { bold: true, size: 10, color: RATING_COLOR[digest.rating.level]! });
  doc.moveDown(0.4);
  tiles(doc, SEVERITIES.map((s) => ({ label: SEVERITY_LABEL[s], value: model.summary.bySeverity[s] ?? 0, color: SEVERITY_COLOR[s] })), 40);
  typeChart(doc, model);
  const t = digest.triage;
  paragraph(doc, `Triage: ${STATUS_LABEL.new} ${t.new} · ${STATUS_LABEL.inProgress} ${t.inProgress} · ${STATUS_LABEL.remediated} ${t.remediated} · ${STATUS_LABEL.rejected} ${t.rejected}`, { size: 9 });
  if (digest.changes) {
    const c = digest.changes;
    const name = `${c.baseline.name}${c.baseline.version ? ` ${c.baseline.version}` : ''}`;
    paragraph(doc, `Since ${name} (uploaded ${humanDate(c.baseline.createTime, true)}): ${c.added.length} new, ${c.resolved.length} resolved, ${c.unchanged} unchanged.`, { size: 9 });
  } else paragraph(doc, 'No earlier image of this product to compare with.', { size: 9, color: MUTED });

  heading(doc, 'Fix these first', 11);
  if (!digest.fixFirst.length) {
    paragraph(doc, `No open finding is known to be exploited (CISA KEV) or has an exploit likelihood (EPSS) of ${HIGH_EPSS * 100}% or more.`, { size: 9, color: MUTED });
  } else {
    table(doc, [{ header: 'Finding', width: 0.2 }, { header: 'Component', width: 0.22 }, { header: 'Why now', width: 0.38 }, { header: 'Fixed in', width: 0.2 }],
      digest.fixFirst.slice(0, 5).map((f) => [f.pname, componentLabel(f.component) || '-', urgency(f), f.knownFixedVersion ?? 'no fix known']), 7.5);
    if (digest.fixFirst.length > 5) paragraph(doc, `…and ${digest.fixFirst.length - 5} more; every one is marked in the findings section.`, { size: 8, color: MUTED });
  }

  heading(doc, 'Top 10 risks', 11);
  table(doc, [
    { header: 'Severity', width: 0.09 }, { header: 'Risk in plain words', width: 0.47 }, { header: 'Fixed in', width: 0.12 }, { header: 'Upgrade that removes the most findings', width: 0.32 },
  ], digest.topRisks.map(({ finding: f, plain, upgrade }) => [
    severityCell(f.severity), `${f.pname} — ${plain}`, f.knownFixedVersion ?? 'no fix known',
    upgrade ? `${upgrade.component} ${upgrade.version ?? ''} → ${upgrade.to}: removes ${plural(upgrade.removes, 'finding')}`.replace('  ', ' ') : '-',
  ]), 7, 'No open findings.');
}
