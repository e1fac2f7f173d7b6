// Content type of a file from its first bytes (FileNode.type, ImageInfo.type): a short kebab-case word that
// analyzers select on ('elf', 'pe', 'script', 'certificate-pem', 'text', 'data', ...). Cheap by design: it sees
// only the head the sink kept, never the whole file.

interface Signature {
  type: string;
  bytes: Buffer;
  offset?: number;
}

const sig = (type: string, hex: string, offset = 0): Signature => ({ type, bytes: Buffer.from(hex, 'hex'), offset });
const str = (type: string, text: string, offset = 0): Signature => ({ type, bytes: Buffer.from(text, 'latin1'), offset });

// Order matters only where one magic is a prefix of another.
const SIGNATURES: Signature[] = [
  sig('elf', '7f454c46'),
  sig('gzip', '1f8b'),
  str('bzip2', 'BZh'),
  sig('xz', 'fd377a585a00'),
  sig('zstd', '28b52ffd'),
  sig('lz4', '04224d18'),
  sig('lz4', '02214c18'),
  str('zip', 'PK\x03\x04'),
  str('zip', 'PK\x05\x06'),
  str('7z', "7z\xbc\xaf'\x1c"),
  str('rar', 'Rar!\x1a\x07'),
  str('tar', 'ustar', 257),
  str('cpio', '070701'),
  str('cpio', '070702'),
  str('cpio', '070707'),
  sig('cpio', 'c771'),
  sig('cpio', '71c7'),
  str('ar', '!<arch>\n'),
  str('squashfs', 'hsqs'),
  str('squashfs', 'sqsh'),
  sig('cramfs', '453dcd28'),
  sig('cramfs', '28cd3d45'),
  str('romfs', '-rom1fs-'),
  sig('jffs2', '8519'),
  sig('jffs2', '1985'),
  str('ubi', 'UBI#'),
  sig('ubifs', '31181006'),
  sig('uimage', '27051956'),
  str('trx', 'HDR0'),
  sig('device-tree', 'd00dfeed'),
  str('uefi-fv', '_FVH', 40),
  str('android-sparse', '\x3a\xff\x26\xed'),
  str('android-boot', 'ANDROID!'),
  str('sqlite', 'SQLite format 3\x00'),
  sig('png', '89504e470d0a1a0a'),
  sig('jpeg', 'ffd8ff'),
  str('gif', 'GIF8'),
  str('pdf', '%PDF-'),
  sig('java-class', 'cafebabe'),
  str('dex', 'dex\n'),
  sig('mach-o', 'feedface'),
  sig('mach-o', 'feedfacf'),
  sig('mach-o', 'cefaedfe'),
  sig('mach-o', 'cffaedfe'),
  str('pe', 'MZ'),
  sig('lzma', '5d000080'),
];

/**
 * The signatures a head can match, by its first byte, in SIGNATURES' order: those whose magic starts with that byte
 * and those at an offset. Most heads then compare one or two magics instead of all of them.
 */
const BY_FIRST_BYTE: Signature[][] = Array.from({ length: 256 }, (_, b) => SIGNATURES.filter((s) => (s.offset ?? 0) > 0 || s.bytes[0] === b));

const PEM_TYPES: Array<[RegExp, string]> = [
  [/-----BEGIN (?:TRUSTED |X509 )?CERTIFICATE-----/, 'certificate-pem'],
  [/-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED )?PRIVATE KEY-----/, 'private-key-pem'],
  [/-----BEGIN (?:RSA |EC )?PUBLIC KEY-----/, 'public-key-pem'],
  [/-----BEGIN CERTIFICATE REQUEST-----/, 'csr-pem'],
  [/-----BEGIN PGP (?:PUBLIC|PRIVATE) KEY BLOCK-----/, 'pgp-key'],
  [/-----BEGIN [A-Z0-9 ]+-----/, 'pem'],
];

function matches(head: Buffer, s: Signature): boolean {
  const at = s.offset ?? 0;
  // compared in place: a view per signature and file made 40 MB of garbage on the 64 MB bench image
  return head.length >= at + s.bytes.length && s.bytes.compare(head, at, at + s.bytes.length) === 0;
}

/** True when the bytes look like text: UTF-8 or Latin-1 printable with whitespace, no NULs. */
export function looksLikeText(head: Buffer): boolean {
  if (head.length === 0) return false;
  let control = 0;
  for (const b of head) {
    if (b === 0) return false;
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) control++;
  }
  return control * 100 <= head.length;
}

/** DER SEQUENCE with a long length that fits: certificates and keys stored in binary. */
function looksLikeDer(head: Buffer): boolean {
  return head.length >= 4 && head[0] === 0x30 && head[1] === 0x82 && head[4] === 0x30;
}

/**
 * A Linux kernel's boot image, by its head: x86 bzImage (the setup header's 'HdrS' and boot flag), ARM zImage
 * (magic 0x016f2818 at 0x24) or arm64 Image ('ARM\x64' at 0x38). Such an image is often a UEFI application too (the
 * EFI stub), but it is the kernel, not platform firmware.
 */
export function isLinuxBootImage(head: Buffer): boolean {
  if (head.length >= 0x206 && head.readUInt16LE(0x1fe) === 0xaa55 && head.toString('latin1', 0x202, 0x206) === 'HdrS') return true;
  if (head.length >= 0x28 && head.readUInt32LE(0x24) === 0x016f2818) return true;
  return head.length >= 0x3c && head.readUInt32LE(0x38) === 0x644d5241;
}

export function detectType(head: Buffer): string {
  if (head.length === 0) return 'empty';
  for (const s of BY_FIRST_BYTE[head[0]!]!) {
    if (!matches(head, s)) continue;
    if (s.type === 'pe' && head.length >= 0x40) {
      // MZ alone is weak: require a plausible e_lfanew.
      const lfanew = head.readUInt32LE(0x3c);
      if (lfanew < 0x40 || lfanew > 0x10000) continue;
    }
    return s.type;
  }
  if (looksLikeText(head)) {
    const text = head.toString('latin1');
    // every PEM type needs this text: most text heads are spared the six searches
    if (text.includes('-----BEGIN ')) for (const [re, type] of PEM_TYPES) if (re.test(text)) return type;
    if (text.startsWith('#!')) return 'script';
    const trimmed = text.trimStart();
    if (trimmed.startsWith('<?xml')) return 'xml';
    if (/^<!doctype html|^<html/i.test(trimmed)) return 'html';
    if ((trimmed.startsWith('{') || trimmed.startsWith('[')) && /^[[{]\s*["{[\]}]/.test(trimmed)) return 'json';
    return 'text';
  }
  if (looksLikeDer(head)) return 'der';
  return 'data';
}
