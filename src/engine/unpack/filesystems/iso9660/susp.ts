// ISO 9660 directory records and their System Use area: the Rock Ridge (RRIP over SUSP) entries that carry
// POSIX names, modes, symlink targets, device numbers and relocated directories. Written from ECMA-119 and
// the SUSP 1.12 / RRIP 1.12 specifications.
import { FormatError } from '../../../format-error.js';
import type { Reader } from '../../handler.js';
import { decodeDev } from '../dev-t.js';

export interface DirRecord {
  length: number;
  extent: number;
  size: number;
  flags: number;
  /** Raw identifier bytes (0x00 = ".", 0x01 = ".."). */
  ident: Buffer;
  /** Seconds since the epoch, from the 7-byte recording date. */
  mtime: number;
  systemUse: Buffer;
}

export const FLAG_DIRECTORY = 0x02;
export const FLAG_MULTI_EXTENT = 0x80;

export function parseRecord(buf: Buffer, at: number): DirRecord | null {
  const length = buf[at]!;
  if (length < 34 || at + length > buf.length) return null;
  const nameLen = buf[at + 32]!;
  if (33 + nameLen > length) return null;
  const d = buf.subarray(at + 18, at + 25);
  // Year since 1900, month, day, hour, minute, second, offset from GMT in 15-minute steps.
  const mtime = Math.floor(Date.UTC(1900 + d[0]!, Math.max(0, d[1]! - 1), d[2]! || 1, d[3]!, d[4]!, d[5]!) / 1000) - (d.readInt8(6) * 15 * 60);
  const suStart = 33 + nameLen + (nameLen % 2 === 0 ? 1 : 0);
  return {
    length,
    extent: buf.readUInt32LE(at + 2),
    size: buf.readUInt32LE(at + 10),
    flags: buf[at + 25]!,
    ident: buf.subarray(at + 33, at + 33 + nameLen),
    mtime,
    systemUse: buf.subarray(at + Math.min(suStart, length), at + length),
  };
}

export interface RockRidge {
  name?: string;
  mode?: number;
  uid?: number;
  gid?: number;
  symlink?: string;
  device?: { major: number; minor: number };
  /** CL: this entry stands for a directory relocated to this block. */
  childLink?: number;
  /** RE: this is the relocated directory itself (listed under rr_moved); skip it there. */
  relocated?: boolean;
  hasSp?: boolean;
  skip?: number;
}

const MAX_CONTINUATIONS = 32;

/**
 * Parses the SUSP entries of one record, following CE continuation areas (bounded, so a loop of
 * continuations cannot hang). `skip` is the SP entry's byte count to skip at the start of every area.
 */
export async function parseSusp(area: Buffer, reader: Reader, base: number, blockSize: number, skip = 0): Promise<RockRidge> {
  const rr: RockRidge = {};
  const names: string[] = [];
  const link: string[] = [];
  let linkPending = '';
  let data: Buffer | null = area.subarray(Math.min(skip, area.length));
  for (let hops = 0; data && hops <= MAX_CONTINUATIONS; hops++) {
    let next: Buffer | null = null;
    let at = 0;
    while (at + 4 <= data.length) {
      const sig = data.toString('latin1', at, at + 2);
      const len = data[at + 2]!;
      if (len < 4 || at + len > data.length) break;
      const e = data.subarray(at, at + len);
      switch (sig) {
        case 'SP':
          if (len >= 7 && e[4] === 0xbe && e[5] === 0xef) {
            rr.hasSp = true;
            rr.skip = e[6];
          }
          break;
        case 'PX':
          if (len >= 36) {
            rr.mode = e.readUInt32LE(4);
            rr.uid = e.readUInt32LE(20);
            rr.gid = e.readUInt32LE(28);
          }
          break;
        case 'PN':
          if (len >= 20) {
            const high = e.readUInt32LE(4);
            const low = e.readUInt32LE(12);
            rr.device = high ? { major: high, minor: low } : decodeDev(low);
          }
          break;
        case 'NM':
          if (len >= 5 && !(e[4]! & 0x06)) names.push(e.subarray(5).toString('utf8'));
          break;
        case 'SL': {
          let c = 5;
          while (c + 2 <= len) {
            const flags = e[c]!;
            const clen = e[c + 1]!;
            const text = e.subarray(c + 2, c + 2 + clen).toString('utf8');
            const part = flags & 0x02 ? '.' : flags & 0x04 ? '..' : flags & 0x08 ? '' : text;
            linkPending += part;
            if (!(flags & 0x01)) {
              link.push(linkPending);
              linkPending = '';
            }
            c += 2 + clen;
          }
          break;
        }
        case 'CL':
          if (len >= 12) rr.childLink = e.readUInt32LE(4);
          break;
        case 'RE':
          rr.relocated = true;
          break;
        case 'CE':
          if (len >= 28) {
            const block = e.readUInt32LE(4);
            const offset = e.readUInt32LE(12);
            const size = e.readUInt32LE(20);
            if (size > 0 && size <= 64 * 1024 && offset < blockSize) next = await reader.readExact(base + block * blockSize + offset, size);
          }
          break;
        case 'ST':
          at = data.length;
          continue;
      }
      at += len;
    }
    data = next;
    if (hops === MAX_CONTINUATIONS && next) throw new FormatError('Rock Ridge continuation areas chain too long');
  }
  if (names.length) rr.name = names.join('');
  if (link.length) {
    // A leading root component ('') makes the target absolute.
    rr.symlink = link.length > 1 && link[0] === '' ? '/' + link.slice(1).join('/') : link[0] === '' ? '/' : link.join('/');
  }
  return rr;
}
