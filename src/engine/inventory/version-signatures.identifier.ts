// Version signatures over binary files: one streamed pass per file runs every pattern of the table (needles via
// one literal search over the bytes, context regexes around hits), then the bare-version patterns of the families
// whose file names match. Text files, compressed streams and media are not scanned.
import { posix } from 'node:path';
import { isElf } from '../binaries/elf.js';
import { detectType, isLinuxBootImage } from '../file-type.js';
import type { FileNode } from '../types.js';
import { buildCpe } from '../cpe.js';
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { buildPurl } from '../purl.js';
import { clean, SignatureMatcher, standaloneStrings, type SignatureHit, type StandalonePattern, type VersionSignature } from './signature.js';
import { signatures } from './signatures/index.js';
import { inTextDatabase } from './text-databases.js';

const NOT_SCANNED = new Set([
  'empty', 'gzip', 'bzip2', 'xz', 'zstd', 'lz4', 'lzma', 'zip', '7z', 'rar', 'png', 'jpeg', 'gif', 'pdf', 'sqlite',
  'text', 'script', 'xml', 'html', 'json', 'certificate-pem', 'private-key-pem', 'public-key-pem', 'csr-pem', 'pgp-key', 'pem', 'der',
]);

/**
 * A file's type from the head the inventory read (FileIndex heads are never modified): once per head, as the
 * version-signature and BearSSL identifiers both select by it.
 */
const headTypes = new WeakMap<Buffer, string>();
export function headType(head: Buffer): string {
  let type = headTypes.get(head);
  if (type === undefined) headTypes.set(head, (type = detectType(head)));
  return type;
}

/** Containers whose content is identified in their unpacked children, not in the container itself. */
export const ARCHIVES = new Set(['tar', 'cpio', 'ar', 'squashfs', 'cramfs', 'romfs', 'jffs2', 'ubi', 'ubifs', 'uefi-fv', 'uimage', 'trx', 'android-sparse', 'android-boot']);

/** Candidates for one signature hit in one file. */
export function candidateFromHit(signature: VersionSignature, hit: Pick<SignatureHit, 'version' | 'match' | 'offset' | 'confidence'>, node: FileNode): Candidate {
  const version = hit.version;
  const candidate: Candidate = {
    key: signature.id,
    name: signature.name,
    type: signature.type,
    confidence: hit.confidence,
    path: node.path,
    primaryFile: true,
    evidence: { path: node.path, method: 'version-signature', match: hit.match, offset: hit.offset },
    purl: buildPurl({ type: 'generic', namespace: signature.purl.namespace, name: signature.purl.name, version }),
  };
  if (version !== undefined) candidate.version = version;
  if (signature.supplier) candidate.supplier = signature.supplier;
  // A CPE without a version would match every release of the product: only versioned components get one.
  if (signature.cpe && version !== undefined) {
    const v: { version: string; update?: string } = signature.cpeVersion ? signature.cpeVersion(version) : { version };
    candidate.cpe = buildCpe({ ...signature.cpe, version: v.version, update: v.update });
  }
  return candidate;
}

export function createVersionSignatureIdentifier(table: readonly VersionSignature[] = signatures): Identifier {
  // made at the first file it identifies (~10 ms: its needle tables and search instance), not when the engine loads:
  // an image of texts and keys has none
  let made: SignatureMatcher | undefined;
  const matcherOf = (): SignatureMatcher => (made ??= new SignatureMatcher(table));
  const withStandalone = table.filter((s) => s.standalone?.length);
  return {
    id: 'version-signatures',
    description: 'version strings with context from a table of component families (method version-signature)',
    selects: (_node, head) => !NOT_SCANNED.has(headType(head)),
    perFile: true, // reads only the file; its candidates name it by path and evidence.path
    async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
      // Archives and filesystems that were unpacked are identified through their children. Other containers
      // (a vmlinux with an embedded initramfs, a flash dump with a carved blob) keep their own strings.
      if (ctx.containers.has(file.node.path) && ARCHIVES.has(headType(await file.head()))) return [];
      // Hardware databases, locale data and manuals name products they do not contain.
      if (inTextDatabase(file.node.fsPath)) return [];
      const baseName = posix.basename(file.node.fsPath);
      const hits = new Map<string, SignatureHit>();
      const matcher = matcherOf();
      const hinted = withStandalone.filter((s) => matcher.hinted(s, baseName));
      // the standalone form whose marker the file holds (the first one found), per family
      const markers = new Map<VersionSignature, StandalonePattern>();
      const bare = new Map<VersionSignature, Map<string, number>>();
      for await (const { offset, data } of file.chunks()) {
        matcher.scanChunk(data, offset, baseName, hits);
        // Only files named like a family with bare-version patterns need the chunk as text.
        const text = hinted.length ? data.toString('latin1') : '';
        for (const s of hinted) {
          for (const p of s.standalone!) {
            if (!markers.has(s) && text.includes(p.marker)) markers.set(s, p);
            const seen = bare.get(s) ?? new Map<string, number>();
            standaloneStrings(text, offset, p.version, seen);
            bare.set(s, seen);
          }
        }
      }
      let found = [...hits.values()];
      // Bare versions: the marker must be present, and exactly one distinct value not claimed by another family.
      const claimed = new Set(found.map((h) => h.version));
      for (const s of hinted) {
        const form = markers.get(s);
        if (!form || found.some((h) => h.signature === s && h.version !== undefined)) continue;
        let values = [...(bare.get(s) ?? new Map<string, number>())].filter(([v]) => !claimed.has(v));
        // Several candidates: a file name carrying the major.minor release ('python3.11') picks among them.
        if (values.length > 1) values = values.filter(([v]) => baseName.includes(v.split('.').slice(0, 2).join('.')));
        if (values.length !== 1) continue;
        const [raw, at] = values[0];
        const version = s.normalize ? s.normalize(raw) : raw;
        found.push({ signature: s, version, match: clean(`${raw} (bare version string; marker '${form.marker}')`), offset: at, confidence: form.confidence ?? 0.6 });
      }
      // platform firmware's names in a program or a kernel (an EFI stub that works around AMI firmware) are not it
      const head = await file.head();
      if (isElf(head) || isLinuxBootImage(head)) found = found.filter((h) => !h.signature.firmwareOnly);
      const families = new Set(found.map((h) => h.signature.id));
      const versioned = new Set(found.filter((h) => h.version !== undefined).map((h) => h.signature.id));
      return found
        .filter((h) => !(h.signature.excludedBy ?? []).some((id) => families.has(id)))
        .filter((h) => h.version !== undefined || !versioned.has(h.signature.id))
        .map((h) => candidateFromHit(h.signature, h, file.node));
    },
  };
}

export const versionSignatureIdentifier = createVersionSignatureIdentifier();
