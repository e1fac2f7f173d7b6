// The findings PDF's first two pages: the cover (what was analysed, the overall risk rating, the contents) and the
// one-page executive summary (severity tiles and chart, what to fix first, the top risks, triage, changes).
import { formatName } from '../engine/unpack/format-names.js';
import { SEVERITIES, type Severity } from '../engine/types.js';
import { firstSentence, HIGH_EPSS, riskText, upgradeText, type FindingsDigest } from './findings-digest.js';
import type { FindingsModel } from './findings-model.js';
import { banner, ensureSpace, facts, FONT, heading, MUTED, paragraph, rowsThatFit, table, TEXT, tiles, usableWidth, type Doc } from './pdf-parts.js';
import { byteSizeWithCount, FINDING_TYPE_LABEL, FINDING_TYPES, humanDate, plural, SEVERITY_COLOR, SEVERITY_LABEL, STATUS_LABEL } from './report-labels.js';
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
    ['File', `${model.image.fileName} (${formatName(model.image.type)})`],
    ['Size', byteSizeWithCount(model.image.size)],
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

/** The words above the actions: whether any open finding is known or likely to be exploited. */
export function fixFirstLead(digest: FindingsDigest): string {
  const n = digest.fixFirst.length;
  if (n) return `${plural(n, 'open finding is', 'open findings are')} known to be exploited (CISA KEV) or likely to be soon (EPSS ${HIGH_EPSS * 100}% or more): the first actions remove them.`;
  if (digest.actions.length) return `No open finding is known to be exploited (CISA KEV) or likely to be soon (EPSS ${HIGH_EPSS * 100}% or more). These actions remove the critical and high ones:`;
  return `No open finding is known to be exploited (CISA KEV), likely to be soon (EPSS ${HIGH_EPSS * 100}% or more), or rated critical or high.`;
}

/** The findings an action removes, in a few words: how many, how severe, which. */
export function removesText(findings: ReportFinding[]): string {
  const names = findings.slice(0, 3).map((f) => (f.findingType === 'dependencyVulnerability' ? f.pname : firstSentence(f.name, 60)));
  const bySeverity = SEVERITIES.map((s) => [s, findings.filter((f) => f.severity === s).length] as const).filter(([, n]) => n).map(([s, n]) => `${n} ${SEVERITY_LABEL[s].toLowerCase()}`);
  return `${plural(findings.length, 'finding')} (${bySeverity.join(', ')}): ${names.join(', ')}${findings.length > 3 ? ` and ${findings.length - 3} more` : ''}`;
}

export const ACTIONS_SHOWN = 5;

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

  heading(doc, 'What to fix first', 11);
  paragraph(doc, fixFirstLead(digest), { size: 8.5 });
  if (digest.actions.length) {
    doc.moveDown(0.2);
    const shown = digest.actions.slice(0, ACTIONS_SHOWN);
    table(doc, [{ header: '#', width: 0.04 }, { header: 'What to do', width: 0.4 }, { header: 'Why first', width: 0.22 }, { header: 'Findings it removes', width: 0.34 }],
      shown.map((a, i) => [{ text: String(i + 1), bold: true }, a.action, a.why, removesText(a.findings)]), 7.5);
    if (digest.actions.length > shown.length) paragraph(doc, `…and ${plural(digest.actions.length - shown.length, 'more action')} for the other critical and high findings, in the findings section.`, { size: 8, color: MUTED });
  }

  heading(doc, 'Top 10 risks', 11);
  const columns = [
    { header: 'Severity', width: 0.09 }, { header: 'Risk in plain words', width: 0.47 }, { header: 'Fixed in', width: 0.12 }, { header: 'Upgrade that removes the most findings', width: 0.32 },
  ];
  const rows = digest.topRisks.map((risk) => [
    severityCell(risk.finding.severity), riskText(risk), risk.finding.knownFixedVersion ?? 'no fix known', upgradeText(risk),
  ]);
  // The summary is one page: the risks that do not fit are named in the findings section, which lists them all.
  const fit = rows.length ? Math.max(1, rowsThatFit(doc, columns, rows, 7, 14)) : 0;
  table(doc, columns, rows.slice(0, fit), 7, 'No open findings.');
  if (fit < rows.length) paragraph(doc, `…and ${rows.length - fit} more of the top 10 in the findings section, most severe first.`, { size: 8, color: MUTED });
}
