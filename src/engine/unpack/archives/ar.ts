// Unix ar archives ('!<arch>\n', used by .deb packages and static libraries .a): 60-byte member headers with
// decimal sizes, data padded to even length. GNU long names ('//' table, '/N' references) and BSD long names
// ('#1/N', name stored before the data) are resolved; the symbol tables ('/', '/SYM64/', '__.SYMDEF') are kept
// as files. The archive ends at the last valid member; a damaged or truncated member ends it with a warning.
import { FormatError } from '../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../handler.js';

const MAGIC = Buffer.from('!<arch>\n', 'latin1');
const HEADER = 60;

interface Member {
  rawName: string;
  mtime: number;
  uid: number;
  gid: number;
  mode: number;
  size: number;
  dataStart: number;
}

function parseHeader(b: Buffer, at: number): Member | null {
  if (b.length < HEADER || b[58] !== 0x60 || b[59] !== 0x0a) return null;
  const text = (from: number, len: number) => b.subarray(from, from + len).toString('latin1').trim();
  const num = (from: number, len: number, radix: number) => {
    const t = text(from, len);
    if (t === '') return 0;
    if (!(radix === 8 ? /^[0-7]+$/ : /^\d+$/).test(t)) return Number.NaN;
    return Number.parseInt(t, radix);
  };
  const size = num(48, 10, 10);
  if (!Number.isFinite(size)) return null;
  return { rawName: text(0, 16), mtime: num(16, 12, 10), uid: num(28, 6, 10), gid: num(34, 6, 10), mode: num(40, 8, 8), size, dataStart: at + HEADER };
}

/**
 * Walks the members from `start`. The archive ends where no member header follows; a header with its closing
 * "`\n" but fields that do not parse, or a member running past the end of the file, breaks the archive off
 * there with a reason (a corrupt chunk when it is the first member), so the members before it are kept.
 */
async function walk(
  reader: Reader,
  start: number,
  onMember?: (m: Member) => Promise<void>,
  signal?: AbortSignal,
): Promise<{ end: number; reason?: string }> {
  let at = start + MAGIC.length;
  for (let index = 0; ; index++) {
    signal?.throwIfAborted();
    if (at >= reader.size) return { end: reader.size };
    const raw = await reader.read(at, HEADER);
    const member = parseHeader(raw, at);
    let reason: string | undefined;
    if (!member) {
      if (raw.length < HEADER || raw[58] !== 0x60 || raw[59] !== 0x0a) return { end: at };
      reason = `invalid member header at ${at}`;
    } else if (member.dataStart + member.size > reader.size) {
      reason = `member ${member.rawName} runs past the end of the file`;
    }
    if (reason !== undefined) {
      if (index === 0) throw new FormatError(`ar: ${reason}`);
      return { end: at, reason };
    }
    await onMember?.(member!);
    at = member!.dataStart + member!.size + (member!.size % 2);
  }
}

async function extractMembers(reader: Reader, start: number, sink: Sink): Promise<void> {
  let longNames: Buffer = Buffer.alloc(0);
  const { reason } = await walk(
    reader,
    start,
    async (m) => {
      let name = m.rawName;
      let dataStart = m.dataStart;
      let size = m.size;
      if (name === '//') {
        longNames = await reader.readExact(m.dataStart, Math.min(m.size, 16 * 1024 * 1024));
        return;
      }
      if (/^\/\d+$/.test(name)) {
        const offset = Number(name.slice(1));
        const end = longNames.indexOf('/\n', offset);
        name = longNames.subarray(offset, end === -1 ? longNames.length : end).toString('utf8');
      } else if (/^#1\/\d+$/.test(name)) {
        const length = Number(name.slice(3));
        if (length > size) {
          sink.problem('error', `ar: BSD name of member at ${m.dataStart - HEADER} is longer than its member; member skipped`, m.dataStart - HEADER);
          return;
        }
        name = (await reader.readExact(dataStart, length)).toString('utf8').replace(/\0+$/, '');
        dataStart += length;
        size -= length;
      } else if (name === '/' || name === '/SYM64/') {
        name = name === '/' ? '__symbols' : '__symbols64';
      } else if (name.endsWith('/')) {
        name = name.slice(0, -1);
      }
      const meta = { mode: Number.isFinite(m.mode) ? m.mode & 0o7777 : undefined, uid: m.uid || undefined, gid: m.gid || undefined, mtime: m.mtime || undefined };
      await sink.copy(name, reader, dataStart, dataStart + size, meta);
    },
    sink.signal,
  );
  if (reason) sink.problem('warning', `ar: archive breaks off (${reason}); the members before it were extracted`, start);
}

export const arHandler: Handler = {
  id: 'ar',
  kind: 'archive',
  doc: { title: 'Unix ar archive', references: ['ar(5) / GNU binutils ar, "System V / GNU" and "BSD" variants', 'deb(5)'] },
  magics: [{ bytes: MAGIC }],
  confidence: 60,
  async chunk(reader: Reader, start: number): Promise<ChunkInfo | null> {
    const head = await reader.read(start, MAGIC.length + HEADER);
    if (!head.subarray(0, MAGIC.length).equals(MAGIC)) return null;
    if (head.length > MAGIC.length && !parseHeader(head.subarray(MAGIC.length), start + MAGIC.length)) return null;
    const { end, reason } = await walk(reader, start);
    return { start, end, meta: reason ? { broken: reason } : undefined };
  },
  async extract(reader, chunk, sink) {
    await extractMembers(reader, chunk.start, sink);
  },
};
