// The Content-Disposition header of a download, per RFC 6266: a quoted ASCII fallback name for old clients and,
// when the name is not plain ASCII, `filename*` with the exact UTF-8 name (RFC 8187 encoding). Node refuses a
// header value outside Latin-1, so a name like 符号.pdb once failed its download with 500. (The content-disposition
// package does the same, but it is only a transitive dependency here and declares Node >= 22.)

/** RFC 8187 attr-char: what stays unencoded in an ext-value; encodeURIComponent also leaves ' ( ) * alone. */
const encodeExtValue = (value: string) => encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export function attachmentDisposition(filename: string): string {
  // One '_' per character outside printable ASCII; '"' and '\' would end or escape the quoted string, and '%'
  // would be percent-decoded by some clients (RFC 6266 appendix D).
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/gu, '_');
  return fallback === filename
    ? `attachment; filename="${filename}"`
    : `attachment; filename="${fallback}"; filename*=UTF-8''${encodeExtValue(filename)}`;
}
