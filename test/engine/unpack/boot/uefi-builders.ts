// Builders of UEFI PI structures for tests, from the PI spec vol. 3: sections, FFS files with their header
// checksum, and firmware volumes with their header checksum and extended header.
import { guidBytes } from '../../../../src/engine/unpack/boot/uefi/guid.js';

const pad4 = (b: Buffer) => Buffer.concat([b, Buffer.alloc((4 - (b.length % 4)) % 4)]);
const pad8 = (b: Buffer, fill: number) => Buffer.concat([b, Buffer.alloc((8 - (b.length % 8)) % 8, fill)]);

export function section(type: number, body: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUIntLE(body.length + 4, 0, 3);
  header[3] = type;
  return Buffer.concat([header, body]);
}

export const ui = (name: string) => section(0x15, Buffer.from(`${name}\0`, 'utf16le'));
export const version = (text: string) => section(0x14, Buffer.concat([Buffer.from([1, 0]), Buffer.from(`${text}\0`, 'utf16le')]));
export const pe32 = (body: Buffer) => section(0x10, body);

/** A stream of sections, each 4-byte aligned. */
export const stream = (...sections: Buffer[]) => Buffer.concat(sections.map(pad4));

export function guided(guid: string, data: Buffer, attributes = 1): Buffer {
  const header = Buffer.alloc(20);
  guidBytes(guid).copy(header, 0);
  header.writeUInt16LE(24, 16); // data offset from the section start (4-byte common header + 20)
  header.writeUInt16LE(attributes, 18);
  return section(0x02, Buffer.concat([header, data]));
}

export function compressed(kind: 0 | 1, originalLength: number, data: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32LE(originalLength, 0);
  header[4] = kind;
  return section(0x01, Buffer.concat([header, data]));
}

/** An FFS file; `large` makes an FFS3 EFI_FFS_FILE_HEADER2 (LARGE_FILE attribute, 64-bit size after the header). */
export function ffsFile(guid: string, type: number, body: Buffer, large = false, dataChecksum = false): Buffer {
  const size = large ? 32 : 24;
  const header = Buffer.alloc(size);
  guidBytes(guid).copy(header, 0);
  header[18] = type;
  header[19] = (large ? 0x01 : 0) | (dataChecksum ? 0x40 : 0);
  if (large) header.writeBigUInt64LE(BigInt(body.length + 32), 24);
  else header.writeUIntLE(body.length + 24, 20, 3);
  // With the CHECKSUM attribute the data sums to zero with this byte; otherwise the fixed value 0xAA.
  header[17] = dataChecksum ? (0x100 - (body.reduce((sum, b) => sum + b, 0) & 0xff)) & 0xff : 0xaa;
  let sum = 0;
  for (let i = 0; i < size; i++) if (i !== 17 && i !== 23) sum += header[i]!;
  header[16] = (0x100 - (sum & 0xff)) & 0xff;
  header[23] = 0xf8; // EFI_FILE_DATA_VALID with erase polarity 1 (bits inverted)
  return Buffer.concat([header, body]);
}

export const FFS2 = '8C8CE578-8A3D-4F1C-9935-896185C32DD3';
export const FFS3 = '5473C07A-3DCB-4DCA-BD6F-1E9689E7349A';

/** A section with the extended header: 24-bit size 0xFFFFFF and the real size in the next 32 bits. */
export function extendedSection(type: number, body: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUIntLE(0xffffff, 0, 3);
  header[3] = type;
  header.writeUInt32LE(body.length + 8, 4);
  return Buffer.concat([header, body]);
}

export function volume(files: Buffer[], { fileSystem = FFS2, name, length }: { fileSystem?: string; name?: string; length?: number } = {}): Buffer {
  const header = Buffer.alloc(0x48);
  guidBytes(fileSystem).copy(header, 0x10);
  header.write('_FVH', 0x28, 'latin1');
  header.writeUInt32LE(0x0004feff, 0x2c); // attributes incl. erase polarity 1
  header.writeUInt16LE(0x48, 0x30);
  header[0x37] = 2;
  const ext = name ? Buffer.concat([guidBytes(name), Buffer.from([0x14, 0, 0, 0])]) : Buffer.alloc(0);
  if (name) header.writeUInt16LE(0x48, 0x34);
  let body = pad8(Buffer.concat([header, ext]), 0xff);
  for (const file of files) body = pad8(Buffer.concat([body, file]), 0xff);
  const total = length ?? Math.ceil(body.length / 0x1000) * 0x1000;
  const fv = Buffer.concat([body, Buffer.alloc(total - body.length, 0xff)]);
  fv.writeBigUInt64LE(BigInt(total), 0x20);
  fv.writeUInt32LE(total / 0x1000, 0x38);
  fv.writeUInt32LE(0x1000, 0x3c);
  let sum = 0;
  for (let i = 0; i < 0x48; i += 2) sum += fv.readUInt16LE(i);
  fv.writeUInt16LE((0x10000 - (sum & 0xffff)) & 0xffff, 0x32);
  return fv;
}
