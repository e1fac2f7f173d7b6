// A sortable text key for plain dotted numeric versions ('2.6.31', '1.0', '2019.78'), so that a database can
// discard criteria whose range cannot hold a version before the matcher sees them. For two versions that both
// have a key, comparing the keys as strings (byte order) gives exactly what genericScheme.compare gives:
// - trailing zero parts are dropped, because the generic scheme treats '1.2' and '1.2.0' as equal;
// - each part is written as its digit count (one digit) then its digits without leading zeros, so a longer
//   number sorts after a shorter one and equal lengths compare digit by digit;
// - a key that is a prefix of another is smaller, as '1.2' < '1.2.1' (the longer one's extra parts end non-zero).
// The key holds only the digits 0-9, so every collation orders it like byte order. Anything else ('1.0.2k',
// 'r13499', '2.4.2b3', '0.15-20200726', a part of 10 or more digits, a key longer than MAX_KEY) has no key, and the
// matcher alone decides: the generic scheme's rules for letters, revisions and date tags never reach a key.

const PLAIN = /^\d+(?:\.\d+)*$/;
const MAX_KEY = 60;
/** A key above every key (all are at most MAX_KEY digits long): the upper end of a range without one. */
export const TOP_KEY = '9'.repeat(MAX_KEY + 1);

export function versionKey(version: string): string | undefined {
  if (!PLAIN.test(version)) return undefined;
  const parts = version.split('.').map((p) => p.replace(/^0+(?=\d)/, ''));
  while (parts.length > 0 && parts[parts.length - 1] === '0') parts.pop();
  let key = '';
  for (const part of parts) {
    if (part.length > 9) return undefined;
    key += `${part.length}${part}`;
  }
  return key.length > MAX_KEY ? undefined : key;
}
