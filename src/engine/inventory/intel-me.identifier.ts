// Intel Management Engine firmware (ME 6-10, CSME 11 and later): the version of the region's code partition
// (FTPR, the one that boots the engine), read from its manifest header. Layouts as ME Analyzer and UEFITool read
// them (MN2_Manifest_R0, CPD_Header_R1/R2, the $FPT partition table):
// - The ME region starts with the $FPT partition table, at offset 0 or after a 16-byte ROM bypass vector.
// - CSE (11+): each code partition is a $CPD directory (partition name at +0x0C, header length at +0x0A, 24-byte
//   entries: name[12], offset (low 25 bits), length); FTPR's entry 'FTPR.man' points at its manifest.
// - ME 6-10: the first $MN2 manifest of the region is FTPR's (the partition starts with it).
// - The manifest header (Intel's MANIFEST_HEADER): type 4 at +0x00, header version 0x10000 at +0x08, vendor 0x8086
//   at +0x10, BCD date at +0x14, tag '$MN2' at +0x1C, then major, minor, hotfix and build as 16-bit words at +0x24.
// NVD's names for the engine firmware products could not be checked here, so no CPE is given.
import type { Candidate, FileView, Identifier } from './identifier.js';
import { buildPurl } from '../purl.js';

export interface EngineVersion {
  version: string;
  /** BCD build date of the manifest, 'YYYY-MM-DD'. */
  date: string;
  /** Offset of the manifest in the file. */
  offset: number;
  /** How the manifest was found: the FTPR $CPD entry (CSE) or the region's first manifest (ME 6-10). */
  via: 'cpd-ftpr' | 'first-manifest';
}

/** The version in the manifest header at `at`, or undefined when it is not a well-formed $MN2 manifest header. */
export function manifestVersion(data: Buffer, at: number): Omit<EngineVersion, 'via'> | undefined {
  if (at < 0 || at + 0x2c > data.length) return undefined;
  if (data.toString('latin1', at + 0x1c, at + 0x20) !== '$MN2') return undefined;
  if (data.readUInt32LE(at) !== 4 || data.readUInt32LE(at + 8) !== 0x10000 || data.readUInt32LE(at + 0x10) !== 0x8086) return undefined;
  const [major, minor, hotfix, build] = [0x24, 0x26, 0x28, 0x2a].map((o) => data.readUInt16LE(at + o));
  if (major === 0 || major > 99) return undefined;
  const bcd = (n: number) => n.toString(16).padStart(2, '0');
  const date = `${data.readUInt16LE(at + 0x16).toString(16).padStart(4, '0')}-${bcd(data[at + 0x15]!)}-${bcd(data[at + 0x14]!)}`;
  return { version: `${major}.${minor}.${hotfix}.${build}`, date, offset: at };
}

/** The manifest of the FTPR $CPD directory (CSE), when the data holds one. */
function cpdFtprManifest(data: Buffer): number | undefined {
  for (let at = data.indexOf('$CPD'); at >= 0; at = data.indexOf('$CPD', at + 4)) {
    if (at + 0x10 > data.length || data.toString('latin1', at + 0x0c, at + 0x10) !== 'FTPR') continue;
    const entries = data.readUInt32LE(at + 4);
    const headerLength = data[at + 0x0a]!;
    if (entries === 0 || entries > 256 || (headerLength !== 0x10 && headerLength !== 0x14)) continue;
    for (let i = 0; i < entries; i++) {
      const entry = at + headerLength + i * 24;
      if (entry + 24 > data.length) break;
      const name = data.toString('latin1', entry, entry + 12).replace(/\0.*$/s, '');
      if (name === 'FTPR.man') return at + (data.readUInt32LE(entry + 12) & 0x1ffffff);
    }
  }
  return undefined;
}

/** The engine firmware version of an ME region (or a file holding its code partition). */
export function engineVersion(data: Buffer): EngineVersion | undefined {
  const cse = cpdFtprManifest(data);
  if (cse !== undefined) {
    const found = manifestVersion(data, cse);
    return found && { ...found, via: 'cpd-ftpr' };
  }
  // A CSE region without its FTPR directory: the other partitions' manifests (PMC, ISH, ...) have versions of their own.
  if (data.includes('$CPD')) return undefined;
  for (let tag = data.indexOf('$MN2'); tag >= 0; tag = data.indexOf('$MN2', tag + 4)) {
    const found = manifestVersion(data, tag - 0x1c);
    if (found) return { ...found, via: 'first-manifest' };
  }
  return undefined;
}

const MAX_READ = 32 * 1024 * 1024;

/** An ME region: $FPT at its start or after the 16-byte ROM bypass vector; or a CSE code partition ($CPD). */
function isEngineRegion(head: Buffer): boolean {
  const at = (tag: string, offset: number) => head.length >= offset + 4 && head.toString('latin1', offset, offset + 4) === tag;
  return at('$FPT', 0) || at('$FPT', 0x10) || at('$CPD', 0);
}

export const intelMeIdentifier: Identifier = {
  id: 'intel-me',
  description: 'Intel ME/CSME firmware version from the FTPR partition manifest (method intel-me-manifest)',
  selects: (node, head) => node.size <= MAX_READ && isEngineRegion(head),
  async identify(file: FileView): Promise<Candidate[]> {
    const all = Buffer.alloc(file.node.size);
    for await (const { offset, data } of file.chunks()) data.copy(all, offset);
    const found = engineVersion(all);
    if (!found) return [];
    const major = Number(found.version.split('.')[0]);
    // $MN2 manifests began with ME 6; CSE with 11. Majors below 6 are TXE or SPS builds, which the header alone
    // does not tell apart from each other.
    const [key, title] = major >= 11 ? ['intel-csme', 'Intel CSME'] : major >= 6 ? ['intel-me', 'Intel ME'] : ['intel-engine-firmware', 'Intel TXE or SPS'];
    return [{
      key,
      name: key,
      version: found.version,
      type: 'firmware',
      supplier: 'Intel',
      purl: buildPurl({ type: 'generic', namespace: 'intel', name: key, version: found.version }),
      confidence: 0.9,
      path: file.node.path,
      primaryFile: true,
      evidence: {
        path: file.node.path,
        method: 'intel-me-manifest',
        offset: found.offset,
        match: `${title} ${found.version}, built ${found.date}: $MN2 manifest at 0x${found.offset.toString(16)} (${found.via === 'cpd-ftpr' ? 'the FTPR partition\'s FTPR.man' : 'the region\'s first manifest, FTPR\'s in ME 6-10'})`,
      },
    }];
  },
};
