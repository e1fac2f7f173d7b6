// Go build information (runtime/debug.BuildInfo as the linker writes it, debug/buildinfo in the Go sources):
// a 32-byte header '\xff Go buildinf:' + pointer size + flags. With flag 2 (Go 1.18+) the Go version and the
// module information follow inline as varint-length strings; before, the header holds two pointers to Go
// string headers {data pointer, length} that need the binary's address map. The module information is text:
// 'path\t<main package>', 'mod\t<path>\t<version>\t<sum>', 'dep\t<path>\t<version>\t<sum>', '=>\t<replacement>…',
// 'build\t<key>=<value>', wrapped in 16-byte sentinels.

export const GO_BUILDINFO_MAGIC = Buffer.from('\xff Go buildinf:', 'latin1');
const FLAG_BIG_ENDIAN = 1;
const FLAG_INLINE = 2;

export interface GoModule {
  path: string;
  version: string;
  sum?: string;
  replacedBy?: { path: string; version: string };
}

export interface GoBuildInfo {
  /** 'go1.21.5' */
  goVersion: string;
  /** The main package path ('path' line). */
  path?: string;
  main?: GoModule;
  deps: GoModule[];
  settings: Map<string, string>;
}

function uvarint(buf: Buffer, at: number): { value: number; next: number } | undefined {
  let value = 0;
  let shift = 0;
  for (let i = at; i < buf.length && i < at + 10; i++) {
    const b = buf[i];
    value += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return { value, next: i + 1 };
    shift += 7;
  }
  return undefined;
}

/** Resolves a virtual address of the binary to bytes (old pointer format); undefined when unmapped. */
export type AddressReader = (vaddr: number, length: number) => Promise<Buffer | undefined>;

/**
 * Parses the build information whose 32-byte header starts `data` (followed by at least the inline strings).
 * Returns undefined when the header is not one; `read` is needed for the pre-1.18 pointer format only.
 */
export async function parseGoBuildInfo(data: Buffer, read?: AddressReader): Promise<GoBuildInfo | undefined> {
  if (data.length < 32 || !data.subarray(0, 14).equals(GO_BUILDINFO_MAGIC)) return undefined;
  const ptrSize = data[14];
  const flags = data[15];
  let goVersion: string;
  let modinfo: Buffer;
  if (flags & FLAG_INLINE) {
    const a = uvarint(data, 32);
    if (!a || a.next + a.value > data.length) return undefined;
    goVersion = data.toString('utf8', a.next, a.next + a.value);
    const b = uvarint(data, a.next + a.value);
    if (!b || b.next + b.value > data.length) return undefined;
    modinfo = data.subarray(b.next, b.next + b.value);
  } else {
    if (!read || (ptrSize !== 4 && ptrSize !== 8)) return undefined;
    const be = (flags & FLAG_BIG_ENDIAN) !== 0;
    const ptr = (buf: Buffer, at: number): number => (ptrSize === 8 ? Number(be ? buf.readBigUInt64BE(at) : buf.readBigUInt64LE(at)) : be ? buf.readUInt32BE(at) : buf.readUInt32LE(at));
    const goString = async (headerAddr: number): Promise<Buffer | undefined> => {
      const header = await read(headerAddr, 2 * ptrSize);
      if (!header || header.length < 2 * ptrSize) return undefined;
      const length = ptr(header, ptrSize);
      if (length > 1 << 20) return undefined;
      return read(ptr(header, 0), length);
    };
    const v = await goString(ptr(data, 16));
    if (v === undefined) return undefined;
    goVersion = v.toString('utf8');
    modinfo = (await goString(ptr(data, 16 + ptrSize))) ?? Buffer.alloc(0);
  }
  if (!/^go\d/.test(goVersion) && !goVersion.startsWith('devel')) return undefined;
  // The sentinels: 16 bytes either side, the last byte before the closing one a newline.
  if (modinfo.length >= 33 && modinfo[modinfo.length - 17] === 0x0a) modinfo = modinfo.subarray(16, modinfo.length - 16);
  return { goVersion, ...parseModInfo(modinfo.toString('utf8')) };
}

export function parseModInfo(text: string): Omit<GoBuildInfo, 'goVersion'> {
  const out: Omit<GoBuildInfo, 'goVersion'> = { deps: [], settings: new Map() };
  let last: GoModule | undefined;
  for (const line of text.split('\n')) {
    const f = line.split('\t');
    if (f[0] === 'path' && f[1]) out.path = f[1];
    else if ((f[0] === 'mod' || f[0] === 'dep') && f[1]) {
      last = { path: f[1], version: f[2] ?? '', sum: f[3] || undefined };
      if (f[0] === 'mod') out.main = last;
      else out.deps.push(last);
    } else if (f[0] === '=>' && f[1] && last) last.replacedBy = { path: f[1], version: f[2] ?? '' };
    else if (f[0] === 'build' && f[1]) {
      const eq = f[1].indexOf('=');
      if (eq > 0) out.settings.set(f[1].slice(0, eq), f[1].slice(eq + 1));
    }
  }
  return out;
}
