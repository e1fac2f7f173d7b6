// CRC lookup tables: not cryptography, but their tables look like crypto constants to naive scanners. They are
// detected so that they can be reported apart (kind 'non-crypto') and never inflate the crypto inventory.
import { head, wordTable, type ConstantSignature } from './types.js';

function table(poly: number, width: 16 | 32, reflected: boolean): number[] {
  const top = 1 << (width - 1);
  const mask = width === 32 ? 0xffffffff : 0xffff;
  return Array.from({ length: 256 }, (_, n) => {
    let c = reflected ? n : n << (width - 8);
    for (let k = 0; k < 8; k++) {
      if (reflected) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
      else c = c & top ? (c << 1) ^ poly : c << 1;
    }
    return (c & mask) >>> 0;
  });
}

const sig = (algorithm: string) => ({ family: 'crc', algorithm, kind: 'non-crypto' as const });
export const crc: ConstantSignature[] = [
  ...wordTable({ ...sig('CRC-32'), id: 'crc32', what: 'CRC-32 table (reflected 0xEDB88320)' }, head(table(0xedb88320, 32, true), 8), 4),
  ...wordTable({ ...sig('CRC-32'), id: 'crc32-msb', what: 'CRC-32 table (MSB-first 0x04C11DB7)' }, head(table(0x04c11db7, 32, false), 8), 4),
  ...wordTable({ ...sig('CRC-32C'), id: 'crc32c', what: 'CRC-32C table (Castagnoli)' }, head(table(0x82f63b78, 32, true), 8), 4),
  ...wordTable({ ...sig('CRC-16'), id: 'crc16-ccitt', what: 'CRC-16/CCITT table (0x1021)' }, head(table(0x1021, 16, false), 12), 2),
  ...wordTable({ ...sig('CRC-16'), id: 'crc16-arc', what: 'CRC-16/ARC table (0xA001)' }, head(table(0xa001, 16, true), 12), 2),
];
