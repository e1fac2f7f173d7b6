// Extended attributes as they are kept on a FileNode: meta.xattrs maps each name to its value, as text when the value
// is printable UTF-8 (an SELinux label's trailing NUL dropped) and otherwise as 'base64:' + its bytes in base64
// (security.capability, ACLs, IMA/EVM signatures). In UBIFS an attribute is an extended-attribute entry under its
// host inode naming an xattr inode whose data is the value (Linux fs/ubifs/xattr.c).

/** Printable text: tab, newline, carriage return and no other control characters. */
const PRINTABLE = /^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$/u;

export function xattrValue(value: Buffer): string {
  const body = value.length > 0 && value[value.length - 1] === 0 ? value.subarray(0, -1) : value;
  const text = body.toString('utf8');
  if (Buffer.from(text, 'utf8').equals(body) && PRINTABLE.test(text) && !text.startsWith('base64:')) return text;
  return `base64:${value.toString('base64')}`;
}

/** name → encoded value for a map of names to values; undefined when there are none. */
export function xattrMeta(values: Iterable<[string, Buffer]>): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  let any = false;
  for (const [name, value] of values) {
    out[name] = xattrValue(value);
    any = true;
  }
  return any ? out : undefined;
}
