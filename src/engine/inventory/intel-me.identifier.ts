// Intel Management Engine / CSME firmware: the ME region's flash partition table ('$FPT') and the code partition's
// manifest header ('$MN2'), which carries the firmware version major.minor.hotfix.build. Read from a bare ME region
// ($FPT at 0 or 0x10) or from a whole SPI image through the flash descriptor's ME region (FLREG2).
// Layouts as published by coreboot's util/ifdtool (descriptor: signature 0x0FF0A55A at 0x10, FLMAP0.FRBA, FLREG
// base/limit in 4 KiB units) and MEAnalyzer (the $FPT header and its 0x20-byte entries; the $CPD code partition
// directory of CSME 11 and later with its 0x18-byte entries; the manifest header with '$MN2' at 0x1C, vendor 0x8086
// at 0x10 and the four 16-bit version fields at 0x24).
import { buildCpe } from '../cpe.js';
import { buildPurl } from '../purl.js';
import type { Candidate, FileView, Identifier } from './identifier.js';

const DESCRIPTOR_SIGNATURE = 0x0ff0a55a;
/** Whole SPI images are at most 64 MiB; an ME region alone is a few MiB. */
const MAX_READ = 64 * 1024 * 1024;

export interface MeFirmware {
  /** Offset of the $FPT in the file. */
  fptOffset: number;
  /** The partition the version came from ('FTPR', or the first code partition with a manifest). */
  partition: string;
  /** Offset of the $MN2 manifest header in the file. */
  manifestOffset: number;
  version: string;
  /** The FIT tool version recorded in the $FPT header (v2.0), when set. */
  fitVersion?: string;
  /** Build date from the manifest (BCD yyyymmdd). */
  date?: string;
}

const tag = (data: Buffer, at: number): string => (at >= 0 && at + 4 <= data.length ? data.toString('latin1', at, at + 4) : '');

/** The ME region of a whole SPI image, from its flash descriptor; undefined when there is no descriptor or no ME region. */
export function meRegion(data: Buffer): { base: number; limit: number } | undefined {
  if (data.length < 0x1000 || data.readUInt32LE(0x10) !== DESCRIPTOR_SIGNATURE) return undefined;
  const frba = ((data.readUInt32LE(0x14) >>> 16) & 0xff) << 4;
  if (frba + 12 > data.length) return undefined;
  const reg = data.readUInt32LE(frba + 8);
  const base = (reg & 0x7fff) << 12;
  const limit = (((reg >>> 16) & 0x7fff) << 12) | 0xfff;
  if (limit <= base || limit >= data.length) return undefined;
  return { base, limit };
}

/** A manifest header at `at`: '$MN2' at 0x1C, Intel's vendor id, version at 0x24. */
function manifestAt(data: Buffer, at: number): { version: string; date?: string } | undefined {
  if (at < 0 || at + 0x30 > data.length || tag(data, at + 0x1c) !== '$MN2' || data.readUInt32LE(at + 0x10) !== 0x8086) return undefined;
  const v = [0x24, 0x26, 0x28, 0x2a].map((o) => data.readUInt16LE(at + o));
  if (v[0] === 0) return undefined;
  const d = data.readUInt32LE(at + 0x14).toString(16).padStart(8, '0');
  return { version: v.join('.'), ...(/^(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/.test(d) ? { date: `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}` } : {}) };
}

/** The manifest of a code partition: at its start (ME up to 10) or the '<name>.man' entry of its $CPD (CSME 11+). */
function partitionManifest(data: Buffer, start: number, name: string): number | undefined {
  if (manifestAt(data, start)) return start;
  if (tag(data, start) !== '$CPD' || start + 0x10 > data.length) return undefined;
  const entries = data.readUInt32LE(start + 4);
  const headerLength = data[start + 0x0a]!;
  if (entries === 0 || entries > 256 || headerLength < 0x10) return undefined;
  for (let i = 0; i < entries; i++) {
    const e = start + headerLength + i * 0x18;
    if (e + 0x18 > data.length) return undefined;
    const entryName = data.toString('latin1', e, e + 12).replace(/\0.*$/s, '');
    if (entryName !== `${name}.man`) continue;
    const at = start + (data.readUInt32LE(e + 12) & 0x1ffffff);
    return manifestAt(data, at) ? at : undefined;
  }
  return undefined;
}

/** The ME firmware version of an ME region or SPI image in `data`; undefined when its headers do not give one. */
export function parseMeFirmware(data: Buffer): MeFirmware | undefined {
  const region = meRegion(data);
  const starts = region ? [region.base] : [0];
  for (const base of starts) {
    const fpt = [base, base + 0x10].find((o) => tag(data, o) === '$FPT');
    if (fpt === undefined || fpt + 0x20 > data.length) continue;
    const count = data.readUInt32LE(fpt + 4);
    const headerVersion = data[fpt + 8]!;
    const headerLength = data[fpt + 0x0a]!;
    if (count === 0 || count > 128 || headerLength < 0x20) continue;
    const fit = headerVersion >= 0x20 ? [0x18, 0x1a, 0x1c, 0x1e].map((o) => data.readUInt16LE(fpt + o)) : [];
    const partitions: Array<{ name: string; offset: number }> = [];
    for (let i = 0; i < count; i++) {
      const e = fpt + headerLength + i * 0x20;
      if (e + 0x20 > data.length) break;
      const name = data.toString('latin1', e, e + 4).replace(/\0.*$/s, '');
      const offset = data.readUInt32LE(e + 8);
      if (/^[A-Z0-9]{2,4}$/.test(name) && offset > 0 && offset !== 0xffffffff) partitions.push({ name, offset });
    }
    // FTPR is the code partition the ROM boots (MEAnalyzer reads the version there); other code partitions follow.
    partitions.sort((a, b) => Number(b.name === 'FTPR') - Number(a.name === 'FTPR'));
    for (const p of partitions) {
      const at = partitionManifest(data, base + p.offset, p.name);
      if (at === undefined) continue;
      const m = manifestAt(data, at)!;
      return {
        fptOffset: fpt, partition: p.name, manifestOffset: at, version: m.version,
        ...(fit.some((n) => n !== 0) ? { fitVersion: fit.join('.') } : {}),
        ...(m.date ? { date: m.date } : {}),
      };
    }
  }
  return undefined;
}

/** CSME (11 and later) has an NVD product; below 11 the header alone does not tell ME from TXE or SPS. */
function cpeFor(version: string): string | undefined {
  const major = Number(version.split('.')[0]);
  if (major < 11 || major > 30) return undefined;
  return buildCpe({ part: 'o', vendor: 'intel', product: 'converged_security_and_management_engine_firmware', version: version.split('.').slice(0, 3).join('.') });
}

export const intelMeIdentifier: Identifier = {
  id: 'intel-me',
  description: 'Intel ME/CSME firmware version from the $FPT partition table and the $MN2 manifest (method intel-me-manifest)',
  selects: (node, head) => node.size <= MAX_READ && head.length >= 0x20 && (tag(head, 0) === '$FPT' || tag(head, 0x10) === '$FPT' || head.readUInt32LE(0x10) === DESCRIPTOR_SIGNATURE),
  perFile: true,
  async identify(file: FileView): Promise<Candidate[]> {
    const all = Buffer.alloc(file.node.size);
    for await (const { offset, data } of file.chunks()) data.copy(all, offset);
    const me = parseMeFirmware(all);
    if (!me) return [];
    const cpe = cpeFor(me.version);
    const candidate: Candidate = {
      key: 'intel-me',
      name: 'intel-me',
      version: me.version,
      type: 'firmware',
      purl: buildPurl({ type: 'generic', namespace: 'intel', name: 'me', version: me.version }),
      supplier: 'Intel',
      confidence: 0.9,
      path: file.node.path,
      primaryFile: true,
      evidence: {
        path: file.node.path,
        method: 'intel-me-manifest',
        offset: me.manifestOffset,
        match: `$FPT at 0x${me.fptOffset.toString(16)}${me.fitVersion ? ` (FIT ${me.fitVersion})` : ''}; ${me.partition} manifest $MN2 at 0x${me.manifestOffset.toString(16)}: version ${me.version}${me.date ? `, built ${me.date}` : ''}`,
      },
    };
    if (cpe) candidate.cpe = cpe;
    return [candidate];
  },
};
