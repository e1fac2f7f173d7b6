// docs/formats.md, rendered from the handlers' own descriptions (id, kind, doc, magics): the list of formats the
// engine unpacks cannot drift from the code. scripts/formats-doc.ts writes it; a test fails when it is stale.
import type { Handler, HandlerKind, Magic } from './handler.js';

/** The command that rewrites docs/formats.md (quoted in the file and in the staleness test's message). */
export const FORMATS_DOC_COMMAND = 'npx tsx scripts/formats-doc.ts';

const KIND_TITLES: Record<HandlerKind, string> = {
  firmware: 'Firmware containers',
  boot: 'Boot firmware (UEFI, coreboot, NVRAM)',
  filesystem: 'Filesystems',
  archive: 'Archives',
  compression: 'Compression',
  executable: 'Executables',
};

const DEFAULT_CONFIDENCE = 50;

function hex(bytes: Buffer): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' ');
}

/** Printable ASCII magics are also shown as text (e.g. `hsqs`), the rest only as hex. */
function magicText(magic: Magic): string {
  const printable = [...magic.bytes].every((b) => b >= 0x20 && b < 0x7f && b !== 0x60);
  const text = printable ? ` ("${magic.bytes.toString('latin1')}")` : '';
  const at = magic.offset ? ` at +0x${magic.offset.toString(16)}` : '';
  return `\`${hex(magic.bytes)}\`${text}${at}`;
}

function tableCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function section(handler: Handler): string[] {
  const lines = [`### ${handler.doc.title}`, '', `- Id: \`${handler.id}\``];
  lines.push(`- Magic: ${handler.magics.map(magicText).join(', ')}${handler.onlyAtStart ? ' (only at the start of a file, never carved)' : ''}`);
  if ((handler.confidence ?? DEFAULT_CONFIDENCE) !== DEFAULT_CONFIDENCE) lines.push(`- Confidence: ${handler.confidence} (default ${DEFAULT_CONFIDENCE})`);
  lines.push(`- Extraction: ${handler.extract ? 'yes' : 'recognised only (the chunk is kept as is)'}`);
  lines.push('', 'References:', '', ...handler.doc.references.map((r) => `- ${r}`));
  const limitations = handler.doc.limitations ?? [];
  if (limitations.length > 0) lines.push('', 'Limitations:', '', ...limitations.map((l) => `- ${l}`));
  lines.push('');
  return lines;
}

/** The Markdown of docs/formats.md for these handlers, grouped by kind in the order the driver tries them. */
export function formatsDoc(handlers: readonly Handler[]): string {
  const kinds = (Object.keys(KIND_TITLES) as HandlerKind[]).filter((kind) => handlers.some((h) => h.kind === kind));
  const lines = [
    '# Supported formats',
    '',
    `<!-- Generated from the handlers' own descriptions (src/engine/unpack/registry.ts): do not edit by hand, run \`${FORMATS_DOC_COMMAND}\`. -->`,
    '',
    `The unpack engine recognises ${handlers.length} formats. Within each kind they are listed in the order the driver tries them at one offset.`,
    '',
    '| Kind | Id | Format |',
    '| --- | --- | --- |',
    ...kinds.flatMap((kind) => handlers.filter((h) => h.kind === kind).map((h) => `| ${kind} | \`${h.id}\` | ${tableCell(h.doc.title)} |`)),
    '',
  ];
  for (const kind of kinds) {
    lines.push(`## ${KIND_TITLES[kind]}`, '');
    for (const handler of handlers.filter((h) => h.kind === kind)) lines.push(...section(handler));
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
