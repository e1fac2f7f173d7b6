// Findings report, PDF (API: findingsReport::pdf, findingsReport::download?contentType=pdf; CLI: -f findings-pdf):
// a cover with the risk rating and contents, a one-page executive summary, then coverage, findings, components,
// cryptographic material, binaries and malicious code. Pages are buffered so that the contents, the running
// header and the page numbers are drawn once every page exists.
import { findingsReportParts } from './findings-report-parts.js';
import { binariesSection, componentsSection, coverage, cryptoSection, findingsSection } from './findings-pdf-body.js';
import { cover, executiveSummary, imageTitle } from './findings-pdf-front.js';
import { collect, FONT, MUTED, newDocument, TEXT, usableWidth, type Doc } from './pdf-parts.js';
import { FINDINGS_SECTIONS, type FindingsSection, type ReportGenerator, type ReportInput } from './report.js';

/** Each section's title, in report order (the golden outline test pins them). */
export const SECTION_TITLES: Record<FindingsSection, string> = {
  summary: 'Executive summary',
  coverage: 'What was analysed',
  findings: 'Findings by type and severity',
  components: 'Components',
  crypto: 'Cryptographic material',
  binaries: 'Binaries, hardening and malicious code',
};

export function chosenSections(input: ReportInput): FindingsSection[] {
  return FINDINGS_SECTIONS.filter((s) => !input.sections || input.sections.includes(s));
}

function sectionPage(doc: Doc, title: string, first: boolean): number {
  if (!first) doc.addPage();
  const page = doc.bufferedPageRange().count - 1;
  doc.outline.addItem(title);
  if (title !== SECTION_TITLES.summary) doc.font(FONT.bold).fontSize(15).fillColor(TEXT).text(title, doc.page.margins.left).moveDown(0.3);
  return page;
}

/** The contents on the cover: each section's title and page number, linked to its page. */
function contents(doc: Doc, y: number, entries: Array<{ title: string; page: number }>): void {
  doc.switchToPage(0);
  const left = doc.page.margins.left;
  const width = usableWidth(doc);
  entries.forEach((e, i) => {
    const top = y + i * 16;
    doc.font(FONT.regular).fontSize(10).fillColor(TEXT).text(e.title, left, top, { lineBreak: false, goTo: `page-${e.page}` } as PDFKit.Mixins.TextOptions);
    doc.text(String(e.page + 1), left, top, { width, align: 'right', lineBreak: false });
  });
}

/** Running header (product and image) and "Page n of N" footer on every page but the cover. */
function decorate(doc: Doc, header: string): void {
  const { start, count } = doc.bufferedPageRange();
  for (let i = start; i < start + count; i++) {
    doc.switchToPage(i);
    doc.addNamedDestination(`page-${i}`, 'XYZ', 0, doc.page.height, null);
    if (i === 0) continue;
    const { top, bottom } = doc.page.margins;
    doc.page.margins.top = 0;
    doc.page.margins.bottom = 0;
    const left = doc.page.margins.left;
    const width = usableWidth(doc);
    doc.font(FONT.regular).fontSize(7.5).fillColor(MUTED).text(header, left, 18, { width, lineBreak: false, ellipsis: true });
    doc.moveTo(left, 30).lineTo(left + width, 30).lineWidth(0.3).strokeColor('#c8ced6').stroke();
    doc.text(`Page ${i + 1} of ${count}`, left, doc.page.height - 26, { width, align: 'right', lineBreak: false });
    doc.page.margins.top = top;
    doc.page.margins.bottom = bottom;
  }
}

export const findingsPdfReport: ReportGenerator = {
  id: 'findings-pdf',
  aliases: [],
  mediaType: 'application/pdf',
  async generate(input) {
    const { model, digest, extras } = findingsReportParts(input);
    const now = input.now ?? new Date();
    const doc = newDocument({ Title: `Firmware security assessment: ${imageTitle(model)}`, Subject: model.image.name, CreationDate: now }, true);
    const done = collect(doc);
    const contentsAt = cover(doc, model, digest);
    const entries: Array<{ title: string; page: number }> = [];
    for (const section of chosenSections(input)) {
      const title = SECTION_TITLES[section];
      entries.push({ title, page: sectionPage(doc, title, false) });
      if (section === 'summary') executiveSummary(doc, model, digest);
      else if (section === 'coverage') coverage(doc, model, extras);
      else if (section === 'findings') findingsSection(doc, model, input.history ?? {});
      else if (section === 'components') componentsSection(doc, extras);
      else if (section === 'crypto') cryptoSection(doc, extras);
      else binariesSection(doc, model, extras);
    }
    contents(doc, contentsAt, entries);
    decorate(doc, `Firmware security assessment · ${model.product ? `${model.product.name} · ` : ''}${imageTitle(model)}`);
    doc.end();
    return done;
  },
};
