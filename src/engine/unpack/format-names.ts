// The name a reader knows a format by ('U-Boot legacy image', 'SquashFS 4.0', 'gzip'), from the handlers' own
// titles (handler.doc.title, also the headings of docs/formats.md) without their parenthesised details, so that
// reports never show a handler id ('uimage', 'squashfs-v4') and the names cannot drift from the handlers.
import { handlers } from './registry.js';

/** A title's name: up to its first parenthesis, e.g. 'U-Boot legacy image (uImage)' -> 'U-Boot legacy image'. */
export function shortTitle(title: string): string {
  return title.split(' (')[0]!.replace(/[,;]\s.*$/, '').trim() || title;
}

// Content types (engine/file-type.ts, the image's `type`) that no handler is named after.
const CONTENT_TYPES: Record<string, string> = { elf: 'ELF executable', pe: 'PE executable', data: 'unrecognised binary data', der: 'DER-encoded data', '7z': '7-Zip', rar: 'RAR' };

let names: Map<string, string> | undefined;

/**
 * The human name of a format by its handler id (the keys of the scan's `formats`) or content type (the image's
 * `type`): 'squashfs-v4' -> 'SquashFS 4.0', 'squashfs' -> 'SquashFS' (the family of 'squashfs-v2'…'-v4'); any other
 * id is returned as is.
 */
export function formatName(id: string): string {
  names ??= new Map(handlers.map((h) => [h.id, shortTitle(h.doc.title)]));
  const exact = names.get(id) ?? CONTENT_TYPES[id];
  if (exact) return exact;
  const family = handlers.find((h) => h.id.startsWith(`${id}-`));
  return family ? shortTitle(family.doc.title).replace(/\s+v?\d[\d.x/]*(\s.*)?$/, '') : id;
}
