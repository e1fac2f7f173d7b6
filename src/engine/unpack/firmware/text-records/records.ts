// What Intel HEX and Motorola S-record handlers share: reading a text file line by line in bounded blocks,
// and turning address/data records into binary files, one per contiguous memory region.
import { FormatError } from '../../../format-error.js';
import type { Reader, Sink } from '../../handler.js';

export interface Line {
  text: string;
  /** Offset of the first character and of the byte after the line ending. */
  start: number;
  end: number;
}

const BLOCK = 64 * 1024;
const MAX_LINE = 1024;

/** Lines from `start`; a line longer than MAX_LINE (not a record file) ends the iteration with that line cut. */
export async function* lines(reader: Reader, start: number): AsyncGenerator<Line> {
  let buffered = Buffer.alloc(0);
  let base = start;
  let at = start;
  while (true) {
    let nl = buffered.indexOf(0x0a);
    while (nl === -1 && buffered.length <= MAX_LINE && at < reader.size) {
      const more = await reader.read(at, BLOCK);
      at += more.length;
      buffered = Buffer.concat([buffered, more]);
      nl = buffered.indexOf(0x0a);
    }
    if (nl === -1) {
      if (buffered.length) yield { text: buffered.subarray(0, MAX_LINE).toString('latin1').replace(/\r$/, ''), start: base, end: base + buffered.length };
      return;
    }
    yield { text: buffered.subarray(0, nl).toString('latin1').replace(/\r$/, ''), start: base, end: base + nl + 1 };
    buffered = buffered.subarray(nl + 1);
    base += nl + 1;
  }
}

/** Bytes of a record's hex digits; null when they are not hex. */
export function hexBytes(text: string): Buffer | null {
  if (text.length % 2 !== 0 || !/^[0-9A-Fa-f]*$/.test(text)) return null;
  return Buffer.from(text, 'hex');
}

/** Gaps up to this size between records are filled with 0xFF (erased flash); larger ones start a new region. */
const MAX_GAP = 4096;
const MAX_TOTAL = 256 * 1024 * 1024;

/** Collects data records and writes them as '<address>.bin' regions. */
export class MemoryImage {
  private readonly records: Array<{ address: number; data: Buffer }> = [];
  private total = 0;

  add(address: number, data: Buffer): void {
    this.total += data.length;
    if (this.total > MAX_TOTAL) throw new FormatError(`more than ${MAX_TOTAL} bytes of records`);
    if (data.length) this.records.push({ address, data });
  }

  regions(): Array<{ address: number; data: Buffer }> {
    const sorted = [...this.records].sort((a, b) => a.address - b.address);
    const out: Array<{ address: number; parts: Array<{ address: number; data: Buffer }>; end: number }> = [];
    for (const r of sorted) {
      const last = out.at(-1);
      if (last && r.address <= last.end + MAX_GAP) {
        last.parts.push(r);
        last.end = Math.max(last.end, r.address + r.data.length);
      } else {
        out.push({ address: r.address, parts: [r], end: r.address + r.data.length });
      }
    }
    return out.map(({ address, parts, end }) => {
      const data = Buffer.alloc(end - address, 0xff);
      // Later records overwrite earlier ones at the same address, as programmers do.
      for (const p of parts) p.data.copy(data, p.address - address);
      return { address, data };
    });
  }

  async write(sink: Sink, meta: Record<string, unknown>): Promise<void> {
    for (const { address, data } of this.regions()) {
      await sink.file(`${address.toString(16).padStart(8, '0')}.bin`, data, { meta: { ...meta, address } });
    }
  }
}
