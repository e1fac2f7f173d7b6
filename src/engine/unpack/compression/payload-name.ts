// The file name a single-payload compression handler gives its output: the name stored in the stream (gzip
// FNAME) when there is a usable one, otherwise the compressed file's own name minus its extension
// ('rootfs.cpio.gz' -> 'rootfs.cpio', 'x.tgz' -> 'x.tar', 'vmlinux.xz' -> 'vmlinux').
import { basename } from 'node:path';

const TAR_ALIASES: Record<string, string> = { '.tgz': '.tar', '.tbz': '.tar', '.tbz2': '.tar', '.txz': '.tar', '.tzst': '.tar', '.tlz': '.tar' };

export function payloadName(containerPath: string, extensions: readonly string[], stored?: string): string {
  if (stored) {
    const name = basename(stored.replace(/\\/g, '/'));
    if (name !== '' && name !== '.' && name !== '..' && !name.includes('\0')) return name;
  }
  const own = basename(containerPath);
  const lower = own.toLowerCase();
  for (const [ext, replacement] of Object.entries(TAR_ALIASES)) {
    if (lower.endsWith(ext) && own.length > ext.length) return own.slice(0, -ext.length) + replacement;
  }
  for (const ext of extensions) {
    if (lower.endsWith(ext) && own.length > ext.length) return own.slice(0, -ext.length);
  }
  return own === '' ? 'payload' : own;
}
