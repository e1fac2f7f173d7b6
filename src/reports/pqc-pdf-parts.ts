// Drawing helpers for the PQC PDF: a paginating table and a horizontal bar chart, on pdfkit.
import type PDFDocument from 'pdfkit';

type Doc = InstanceType<typeof PDFDocument>;

export interface Column {
  header: string;
  /** Share of the usable width (the shares of a table add up to 1). */
  width: number;
}

const PAD = 3;

export function heading(doc: Doc, text: string): void {
  if (doc.y > doc.page.height - doc.page.margins.bottom - 80) doc.addPage();
  doc.moveDown(0.6).font('Helvetica-Bold').fontSize(13).fillColor('#1a1a1a').text(text, doc.page.margins.left).moveDown(0.3);
}

const HEADER_FONT = 'Helvetica-Bold';

/**
 * The header font size at which every word of every header fits its column, so headers wrap only at spaces
 * (pdfkit breaks a word wider than its column inside the word).
 */
export function headerFontSize(doc: Doc, columns: Column[], widths: number[], fontSize: number): number {
  doc.font(HEADER_FONT).fontSize(fontSize);
  let size = fontSize;
  columns.forEach((column, i) => {
    for (const word of column.header.split(' ')) size = Math.min(size, (fontSize * (widths[i]! - 2 * PAD)) / doc.widthOfString(word));
  });
  return Math.floor(size * 10) / 10;
}

/**
 * Draws a table; long tables continue on new pages with the header repeated. Cells wrap. A table without rows is
 * not drawn: `empty` says so in a sentence instead.
 */
export function table(doc: Doc, columns: Column[], rows: string[][], fontSize = 7.5, empty = 'None.'): void {
  const left = doc.page.margins.left;
  if (!rows.length) {
    doc.font('Helvetica').fontSize(9).fillColor('#444444').text(empty, left).moveDown(0.5);
    return;
  }
  const usable = doc.page.width - left - doc.page.margins.right;
  const widths = columns.map((c) => c.width * usable);
  const headerSize = headerFontSize(doc, columns, widths, fontSize);
  const bottom = () => doc.page.height - doc.page.margins.bottom;
  const sizeOf = (font: string) => (font === HEADER_FONT ? headerSize : fontSize);
  const rowHeight = (cells: string[], font: string) => {
    doc.font(font).fontSize(sizeOf(font));
    return Math.max(...cells.map((cell, i) => doc.heightOfString(cell || ' ', { width: widths[i]! - 2 * PAD }))) + 2 * PAD;
  };
  const drawRow = (cells: string[], font: string, fill?: string) => {
    const height = rowHeight(cells, font);
    if (doc.y + height > bottom()) {
      doc.addPage();
      if (font !== HEADER_FONT) drawRow(columns.map((c) => c.header), HEADER_FONT, '#dde3ea');
    }
    const y = doc.y;
    if (fill) doc.rect(left, y, usable, height).fill(fill);
    let x = left;
    cells.forEach((cell, i) => {
      doc.font(font).fontSize(sizeOf(font)).fillColor('#1a1a1a').text(cell || '', x + PAD, y + PAD, { width: widths[i]! - 2 * PAD });
      x += widths[i]!;
    });
    doc.moveTo(left, y + height).lineTo(left + usable, y + height).lineWidth(0.3).strokeColor('#b0b8c0').stroke();
    doc.x = left;
    doc.y = y + height;
  };
  drawRow(columns.map((c) => c.header), HEADER_FONT, '#dde3ea');
  rows.forEach((row, i) => drawRow(row, 'Helvetica', i % 2 ? '#f6f8fa' : undefined));
  doc.moveDown(0.5);
}

export interface Bar {
  label: string;
  value: number;
  color: string;
}

/** A labelled horizontal bar chart, scaled to the largest value; with nothing to count, a sentence says so. */
export function barChart(doc: Doc, title: string, bars: Bar[]): void {
  const left = doc.page.margins.left;
  if (!bars.some((b) => b.value > 0)) {
    doc.font('Helvetica').fontSize(9).fillColor('#444444').text(`${title}: nothing to chart.`, left).moveDown(0.5);
    return;
  }
  const labelWidth = 140;
  const chartWidth = doc.page.width - left - doc.page.margins.right - labelWidth - 40;
  const max = Math.max(1, ...bars.map((b) => b.value));
  if (doc.y + 30 + bars.length * 18 > doc.page.height - doc.page.margins.bottom) doc.addPage();
  doc.font('Helvetica-Bold').fontSize(10).fillColor('#1a1a1a').text(title, left).moveDown(0.3);
  for (const bar of bars) {
    const y = doc.y;
    doc.font('Helvetica').fontSize(8.5).fillColor('#1a1a1a').text(bar.label, left, y + 2, { width: labelWidth - 6 });
    const width = (bar.value / max) * chartWidth;
    if (width > 0) doc.rect(left + labelWidth, y, Math.max(width, 1), 12).fill(bar.color);
    doc.fillColor('#1a1a1a').text(String(bar.value), left + labelWidth + width + 4, y + 2);
    doc.x = left;
    doc.y = y + 18;
  }
  doc.moveDown(0.5);
}
