// Intel HEX: text records ':LLAAAATT<data>CC' (byte count, 16-bit address, type, data, two's-complement
// checksum) with extended segment (02) and linear (04) address records, start addresses (03, 05) and an
// end-of-file record (01). The chunk ends after the end-of-file record; the data becomes one binary file per
// contiguous memory region, named by its address.
import { FormatError } from '../../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import { hexBytes, lines, MemoryImage } from './records.js';

interface Parsed {
  end: number;
  records: number;
  startAddress?: number;
}

/** Walks the records from `start`, feeding data to `image` when given. */
async function parse(reader: Reader, start: number, image?: MemoryImage): Promise<Parsed | null> {
  let base = 0;
  let records = 0;
  let startAddress: number | undefined;
  let lineNo = 0;
  for await (const line of lines(reader, start)) {
    lineNo++;
    const text = line.text.trim();
    if (text === '' && records > 0) continue;
    const bytes = text.startsWith(':') ? hexBytes(text.slice(1)) : null;
    if (!bytes || bytes.length < 5 || bytes.length !== bytes[0]! + 5) {
      if (records === 0) return null;
      throw new FormatError(`Intel HEX line ${lineNo}: not a record`);
    }
    if (bytes.reduce((s, b) => (s + b) & 0xff, 0) !== 0) {
      if (records === 0) return null;
      throw new FormatError(`Intel HEX line ${lineNo}: checksum mismatch`);
    }
    records++;
    const data = bytes.subarray(4, bytes.length - 1);
    const type = bytes[3]!;
    switch (type) {
      case 0x00:
        image?.add(base + bytes.readUInt16BE(1), data);
        break;
      case 0x01:
        return { end: line.end, records, startAddress };
      case 0x02:
        base = data.readUInt16BE(0) * 16;
        break;
      case 0x04:
        base = data.readUInt16BE(0) * 0x10000;
        break;
      case 0x03:
        startAddress = data.readUInt16BE(0) * 16 + data.readUInt16BE(2);
        break;
      case 0x05:
        startAddress = data.readUInt32BE(0);
        break;
      default:
        throw new FormatError(`Intel HEX line ${lineNo}: unknown record type ${type}`);
    }
    if ((type === 0x02 || type === 0x04) && data.length !== 2) throw new FormatError(`Intel HEX line ${lineNo}: bad address record`);
  }
  if (records === 0) return null;
  throw new FormatError('Intel HEX: no end-of-file record');
}

async function chunk(reader: Reader, start: number): Promise<ChunkInfo | null> {
  const parsed = await parse(reader, start);
  if (!parsed) return null;
  return { start, end: parsed.end, meta: { records: parsed.records, startAddress: parsed.startAddress } };
}

async function extract(reader: Reader, info: ChunkInfo, sink: Sink): Promise<void> {
  const image = new MemoryImage();
  await parse(reader, info.start, image);
  await image.write(sink, { startAddress: info.meta?.startAddress });
}

export const intelHexHandler: Handler = {
  id: 'intel-hex',
  kind: 'firmware',
  doc: {
    title: 'Intel HEX',
    references: ['Intel Hexadecimal Object File Format Specification, rev. A (1988)', 'srecord srec_intel(5)'],
  },
  // A colon and a few digits are too common to carve for: only whole files.
  magics: [{ bytes: Buffer.from(':') }],
  onlyAtStart: true,
  confidence: 40,
  chunk,
  extract,
};
