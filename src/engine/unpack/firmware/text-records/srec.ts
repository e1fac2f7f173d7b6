// Motorola S-records: text records 'S<type><count><address><data><checksum>' with 2-, 3- or 4-byte addresses
// (S1/S2/S3 data, S7/S8/S9 start address and end), an optional S0 header (module name) and S5/S6 counts.
// The checksum is the ones' complement of the sum of count, address and data bytes. Data becomes one binary
// file per contiguous memory region, named by its address.
import { FormatError } from '../../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import { hexBytes, lines, MemoryImage } from './records.js';

const ADDRESS_SIZE: Record<string, number> = { '0': 2, '1': 2, '2': 3, '3': 4, '5': 2, '6': 3, '7': 4, '8': 3, '9': 2 };

interface Parsed {
  end: number;
  records: number;
  header?: string;
  startAddress?: number;
}

async function parse(reader: Reader, start: number, image?: MemoryImage): Promise<Parsed | null> {
  const result: Parsed = { end: start, records: 0 };
  let lineNo = 0;
  for await (const line of lines(reader, start)) {
    lineNo++;
    const text = line.text.trim();
    if (text === '' && result.records > 0) continue;
    const kind = text[1] ?? '';
    const size = ADDRESS_SIZE[kind];
    const bytes = text[0] === 'S' && size ? hexBytes(text.slice(2)) : null;
    const valid = bytes && bytes.length >= 1 + size! + 1 && bytes[0] === bytes.length - 1;
    if (!valid) {
      // The file may end without a termination record: the chunk ends at the last record.
      if (result.records === 0) return null;
      if (text === '') break;
      throw new FormatError(`S-record line ${lineNo}: not a record`);
    }
    if ((bytes.subarray(0, -1).reduce((s, b) => s + b, 0) & 0xff ^ 0xff) !== bytes.at(-1)) {
      if (result.records === 0) return null;
      throw new FormatError(`S-record line ${lineNo}: checksum mismatch`);
    }
    result.records++;
    result.end = line.end;
    const address = bytes.readUIntBE(1, size!);
    const data = bytes.subarray(1 + size!, -1);
    if (kind === '0') result.header = data.toString('latin1').replace(/\0+$/, '');
    else if (kind === '1' || kind === '2' || kind === '3') image?.add(address, data);
    else if (kind === '7' || kind === '8' || kind === '9') {
      result.startAddress = address;
      return result;
    }
  }
  if (result.records === 0) return null;
  return result;
}

async function chunk(reader: Reader, start: number): Promise<ChunkInfo | null> {
  const parsed = await parse(reader, start);
  if (!parsed) return null;
  return { start, end: parsed.end, meta: { records: parsed.records, header: parsed.header, startAddress: parsed.startAddress } };
}

async function extract(reader: Reader, info: ChunkInfo, sink: Sink): Promise<void> {
  const image = new MemoryImage();
  await parse(reader, info.start, image);
  await image.write(sink, { header: info.meta?.header, startAddress: info.meta?.startAddress });
}

export const srecHandler: Handler = {
  id: 'srec',
  kind: 'firmware',
  doc: {
    title: 'Motorola S-records (SREC)',
    references: ['srecord srec_motorola(5)', 'Motorola M68000 Family Programmer\'s Reference Manual, appendix C'],
  },
  magics: [{ bytes: Buffer.from('S0') }, { bytes: Buffer.from('S1') }, { bytes: Buffer.from('S2') }, { bytes: Buffer.from('S3') }],
  onlyAtStart: true,
  confidence: 40,
  chunk,
  extract,
};
