// Opens a PDF with pdf.js (the legacy build for Node, as Firefox and most web viewers do) with its console
// messages collected: every page's operator list (fonts parsed, drawing decoded) and text are read, and whatever
// pdf.js printed (warnings, errors) comes back to be asserted empty.
import { getDocument, VerbosityLevel } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface PdfjsReading {
  pages: string[];
  /** What pdf.js printed while loading and reading: 'Warning: ...', errors. */
  messages: string[];
}

export async function readWithPdfjs(pdf: Buffer): Promise<PdfjsReading> {
  const messages: string[] = [];
  const saved = { warn: console.warn, error: console.error, log: console.log };
  const keep = (...args: unknown[]) => messages.push(args.map(String).join(' '));
  console.warn = keep;
  console.error = keep;
  console.log = keep;
  try {
    const task = getDocument({ data: new Uint8Array(pdf), verbosity: VerbosityLevel.WARNINGS, isEvalSupported: false, disableFontFace: true, useSystemFonts: false });
    const doc = await task.promise;
    const pages: string[] = [];
    try {
      for (let n = 1; n <= doc.numPages; n++) {
        const page = await doc.getPage(n);
        await page.getOperatorList();
        const content = await page.getTextContent();
        pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''));
      }
    } finally {
      await doc.destroy();
    }
    return { pages, messages };
  } finally {
    Object.assign(console, saved);
  }
}
