// Drawing helpers shared by the PDF reports (findings, PQC), on pdfkit: embedded fonts, headings, tables on
// pdfkit's table() that continue on new pages with their header repeated, bar charts, coloured tiles and banners.
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';

export type Doc = InstanceType<typeof PDFDocument>;

const fontFile = (name: string) => createRequire(import.meta.url).resolve(`dejavu-fonts-ttf/ttf/${name}.ttf`);

/**
 * The embedded fonts (DejaVu Sans condensed, so every reader shows the same glyphs), named by their files' paths.
 * Not registered under short names: pdfkit's table puts the font back after each cell by its file path, and a
 * path it has not opened under that key is read and parsed again every time (12 s of 200 findings' 12.5 s).
 */
export const FONT = { regular: fontFile('DejaVuSansCondensed'), bold: fontFile('DejaVuSansCondensed-Bold'), mono: fontFile('DejaVuSansMono') } as const;

/** A new A4 document with the embedded body font selected. */
export function newDocument(info: { Title: string; Subject: string; CreationDate: Date }, bufferPages = false): Doc {
  const doc = new PDFDocument({ size: 'A4', margin: 40, bufferPages, info: { ...info, Creator: 'Firmscope' }, lang: 'en' } as PDFKit.PDFDocumentOptions);
  doc.font(FONT.regular);
  return doc;
}

/** Collects the document's bytes; call before drawing, await after doc.end(). */
export function collect(doc: Doc): Promise<Buffer> {
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}

export const TEXT = '#1a1a1a';
export const MUTED = '#4a4a4a';

export const bottomOf = (doc: Doc) => doc.page.height - doc.page.margins.bottom;
export const usableWidth = (doc: Doc) => doc.page.width - doc.page.margins.left - doc.page.margins.right;

/** A new page unless `space` points remain on this one. */
export function ensureSpace(doc: Doc, space: number): void {
  if (doc.y + space > bottomOf(doc)) doc.addPage();
}

export function heading(doc: Doc, text: string, size = 13): void {
  ensureSpace(doc, 80);
  doc.moveDown(0.6).font(FONT.bold).fontSize(size).fillColor(TEXT).text(text, doc.page.margins.left).moveDown(0.3);
}

export function paragraph(doc: Doc, text: string, options: { size?: number; color?: string; bold?: boolean } = {}): void {
  doc.font(options.bold ? FONT.bold : FONT.regular).fontSize(options.size ?? 9.5).fillColor(options.color ?? TEXT).text(text, doc.page.margins.left, doc.y, { width: usableWidth(doc) });
}

export interface Column {
  header: string;
  /** Share of the usable width (the shares of a table add up to 1). */
  width: number;
}

/** A cell: its text, optionally coloured or bold. */
export type Cell = string | { text: string; color?: string; bold?: boolean; fill?: string; textColor?: string };

const PAD = 3;
const HEADER_FILL = '#dde3ea';

/**
 * The header font size at which every word of every header fits its column, so headers wrap only at spaces
 * (pdfkit breaks a word wider than its column inside the word).
 */
export function headerFontSize(doc: Doc, columns: Column[], widths: number[], fontSize: number): number {
  doc.font(FONT.bold).fontSize(fontSize);
  let size = fontSize;
  columns.forEach((column, i) => {
    for (const word of column.header.split(' ')) size = Math.min(size, (fontSize * (widths[i]! - 2 * PAD)) / doc.widthOfString(word));
  });
  return Math.floor(size * 10) / 10;
}

const textOf = (cell: Cell) => (typeof cell === 'string' ? cell : cell.text);

/**
 * Draws a table with pdfkit's table(). Rows are measured first: a row that would not fit ends the table on this
 * page and the table goes on on the next with its header repeated, so no row is split. A table without rows is not
 * drawn: `empty` says so in a sentence instead.
 */
export function table(doc: Doc, columns: Column[], rows: Cell[][], fontSize = 7.5, empty = 'None.'): void {
  const left = doc.page.margins.left;
  if (!rows.length) {
    doc.font(FONT.regular).fontSize(9).fillColor(MUTED).text(empty, left).moveDown(0.5);
    return;
  }
  const widths = columns.map((c) => c.width * usableWidth(doc));
  const headerSize = headerFontSize(doc, columns, widths, fontSize);
  const heightOf = (cells: Cell[], font: string, size: number) => {
    doc.font(font).fontSize(size);
    return Math.max(...cells.map((cell, i) => doc.heightOfString(textOf(cell) || ' ', { width: widths[i]! - 2 * PAD }))) + 2 * PAD;
  };
  const headerHeight = heightOf(columns.map((c) => c.header), FONT.bold, headerSize);
  const style = { padding: PAD, border: { top: 0.3, right: 0, bottom: 0.3, left: 0 }, borderColor: '#b0b8c0' };
  let part: PDFKit.Mixins.PDFTableObject | undefined;
  const start = () => {
    part = doc.table({ position: { x: left, y: doc.y }, columnStyles: widths, defaultStyle: style });
    part!.row(columns.map((c) => ({ text: c.header, type: 'TH' as const, font: { src: FONT.bold, size: headerSize }, backgroundColor: HEADER_FILL, textColor: TEXT })));
  };
  rows.forEach((row, r) => {
    const height = heightOf(row.map(textOf), FONT.regular, fontSize);
    if (!part) {
      if (doc.y + headerHeight + height > bottomOf(doc) - 2) doc.addPage();
      start();
    } else if (doc.y + height > bottomOf(doc) - 2) {
      part.end();
      doc.addPage();
      start();
    }
    part!.row(row.map((cell) => {
      const c = typeof cell === 'string' ? { text: cell } : cell;
      return {
        text: c.text || ' ', font: { src: c.bold ? FONT.bold : FONT.regular, size: fontSize }, textColor: c.textColor ?? c.color ?? TEXT,
        ...(c.fill ? { backgroundColor: c.fill } : r % 2 ? { backgroundColor: '#f6f8fa' } : {}),
      };
    }));
  });
  part!.end();
  doc.x = left;
  doc.moveDown(0.5);
}

/** How many of `rows` fit, with the table header, between the cursor and `reserve` points above the page bottom. */
export function rowsThatFit(doc: Doc, columns: Column[], rows: Cell[][], fontSize: number, reserve = 0): number {
  const widths = columns.map((c) => c.width * usableWidth(doc));
  const heightOf = (cells: Cell[], font: string, size: number) => {
    doc.font(font).fontSize(size);
    return Math.max(...cells.map((cell, i) => doc.heightOfString(textOf(cell) || ' ', { width: widths[i]! - 2 * PAD }))) + 2 * PAD;
  };
  let y = doc.y + heightOf(columns.map((c) => c.header), FONT.bold, headerFontSize(doc, columns, widths, fontSize));
  let n = 0;
  for (const row of rows) {
    y += heightOf(row, FONT.regular, fontSize);
    if (y > bottomOf(doc) - reserve - 2) break;
    n++;
  }
  return n;
}

export interface Bar {
  label: string;
  value: number;
  color: string;
}

/** A labelled horizontal bar chart, scaled to the largest value; with nothing to count, a sentence says so. */
export function barChart(doc: Doc, title: string, bars: Bar[], options: { labelWidth?: number; x?: number; width?: number } = {}): void {
  const left = options.x ?? doc.page.margins.left;
  if (!bars.some((b) => b.value > 0)) {
    doc.font(FONT.regular).fontSize(9).fillColor(MUTED).text(`${title}: nothing to chart.`, left).moveDown(0.5);
    return;
  }
  const labelWidth = options.labelWidth ?? 140;
  const chartWidth = (options.width ?? usableWidth(doc)) - labelWidth - 40;
  const max = Math.max(1, ...bars.map((b) => b.value));
  ensureSpace(doc, 30 + bars.length * 18);
  doc.font(FONT.bold).fontSize(10).fillColor(TEXT).text(title, left).moveDown(0.3);
  for (const bar of bars) {
    const y = doc.y;
    doc.font(FONT.regular).fontSize(8.5).fillColor(TEXT).text(bar.label, left, y + 2, { width: labelWidth - 6 });
    const width = (bar.value / max) * chartWidth;
    if (width > 0) doc.rect(left + labelWidth, y, Math.max(width, 1), 12).fill(bar.color);
    doc.fillColor(TEXT).text(String(bar.value), left + labelWidth + width + 4, y + 2);
    doc.x = left;
    doc.y = y + 18;
  }
  doc.x = doc.page.margins.left;
  doc.moveDown(0.5);
}

/** A row of coloured tiles, each a big number over a label (severity counts). */
export function tiles(doc: Doc, items: Array<{ label: string; value: number; color: string }>, height = 46): void {
  const left = doc.page.margins.left;
  const gap = 6;
  const width = (usableWidth(doc) - gap * (items.length - 1)) / items.length;
  ensureSpace(doc, height + 8);
  const top = doc.y;
  items.forEach((item, i) => {
    const x = left + i * (width + gap);
    doc.roundedRect(x, top, width, height, 4).fill(item.color);
    doc.font(FONT.bold).fontSize(18).fillColor('#ffffff').text(String(item.value), x, top + 5, { width, align: 'center' });
    doc.font(FONT.regular).fontSize(8.5).fillColor('#ffffff').text(item.label, x, top + 29, { width, align: 'center' });
  });
  doc.x = left;
  doc.y = top + height + 8;
}

/** A framed box with a bold title and a body, e.g. the incomplete-analysis warning. */
export function banner(doc: Doc, title: string, body: string, colors: { fill: string; stroke: string; title: string } = { fill: '#fbeaea', stroke: '#b52a2a', title: '#b52a2a' }): void {
  const x = doc.page.margins.left;
  const width = usableWidth(doc);
  doc.font(FONT.regular).fontSize(9);
  const height = doc.heightOfString(body, { width: width - 16 }) + 30;
  ensureSpace(doc, height + 6);
  const top = doc.y;
  doc.rect(x, top, width, height).fillAndStroke(colors.fill, colors.stroke);
  doc.font(FONT.bold).fontSize(11).fillColor(colors.title).text(title, x + 8, top + 6, { width: width - 16 });
  doc.font(FONT.regular).fontSize(9).fillColor(TEXT).text(body, x + 8, doc.y + 2, { width: width - 16 });
  doc.x = x;
  doc.y = top + height + 6;
}

/**
 * About the height facts() takes for these rows, for a page-break decision: each line's width over the column's,
 * rounded up, a tenth added for the words that wrap early (cheaper than laying the text out with heightOfString).
 */
export function factsHeight(doc: Doc, rows: Array<[string, string]>, labelWidth = 110, size = 9.5): number {
  doc.font(FONT.regular).fontSize(size);
  const width = usableWidth(doc) - labelWidth;
  const lineHeight = doc.currentLineHeight(true);
  const lines = (value: string) => value.split('\n').reduce((n, line) => n + Math.max(1, Math.ceil((doc.widthOfString(line) * 1.1) / width)), 0);
  return rows.reduce((sum, [, value]) => sum + Math.max(lines(value) * lineHeight, size * 1.2) + 2, 0);
}

/** Label: value lines in two aligned columns. */
export function facts(doc: Doc, rows: Array<[string, string]>, labelWidth = 110, size = 9.5): void {
  const left = doc.page.margins.left;
  for (const [label, value] of rows) {
    doc.font(FONT.regular).fontSize(size);
    const height = Math.max(doc.heightOfString(value, { width: usableWidth(doc) - labelWidth }), size * 1.2);
    ensureSpace(doc, height);
    const y = doc.y;
    doc.font(FONT.bold).fontSize(size).fillColor(MUTED).text(label, left, y, { width: labelWidth - 6 });
    doc.font(FONT.regular).fontSize(size).fillColor(TEXT).text(value, left + labelWidth, y, { width: usableWidth(doc) - labelWidth });
    doc.x = left;
    doc.y = y + height + 2;
  }
}
