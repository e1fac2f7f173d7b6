// Runs every detector over one file in a single streamed pass, then reads back the small ranges that need a
// closer look (DER candidates, PEM blocks, SSH lines, version strings, cipher-suite names). Memory is bounded by
// the scanner's chunk and the per-file caps below, whatever the file size.
import type { AlgorithmHit, FileDetections, LibraryHit, ProtocolHit } from './detections.js';
import { emptyDetections } from './detections.js';
import { carveAt, type DerKind, type RangeReader } from './der-carver.js';
import { LIBRARIES, parseSpec } from './libraries.js';
import { outermost, type Material } from './material.js';
import { patternSet } from './patterns.js';
import type { StreamGap } from './scanner.js';
import { parsePemBlock } from './pem.js';
import { suiteAlgorithms, suiteAround, type ProtocolName } from './protocols.js';
import { parseDropbearKey, parseSshPublicKeyLine } from './ssh-keys.js';
import { parseUsign } from './usign.js';

/** Per file: offsets kept per constant, anchors examined, suite names read. */
const OFFSETS_KEPT = 3;
const MAX_ANCHORS = 2000;
const MAX_SUITE_READS = 400;

export interface DetectOptions {
  now: Date;
  signal?: AbortSignal;
}

interface Pending {
  kind: DerKind | 'pem' | 'ssh-public-key' | 'usign';
  offset: number;
}

export async function detectFile(path: string, chunks: AsyncIterable<Buffer | Uint8Array | string | StreamGap>, read: RangeReader, options: DetectOptions): Promise<FileDetections> {
  const { scanner, meanings } = patternSet();
  const constants = new Map<number, { count: number; offsets: number[] }>();
  const libraryMarkers = new Map<string, LibraryFound>();
  const protocolHits: Array<{ pattern: number; offset: number }> = [];
  const anchors: Pending[] = [];
  let suiteReads = 0;

  const size = await scanner.scanStream(
    chunks,
    (pattern, offset) => {
      const meaning = meanings[pattern]!;
      switch (meaning.type) {
        case 'constant': {
          const entry = constants.get(pattern) ?? { count: 0, offsets: [] };
          entry.count++;
          if (entry.offsets.length < OFFSETS_KEPT) entry.offsets.push(offset);
          constants.set(pattern, entry);
          break;
        }
        case 'library-marker':
        case 'library-function': {
          const entry = libraryMarkers.get(meaning.library.id) ?? { markers: new Set(), functions: new Set(), offset, markerOffsets: [] };
          if (meaning.type === 'library-marker') {
            if (!entry.markers.size) entry.offset = offset;
            entry.markers.add(meaning.marker);
            if (entry.markerOffsets.length < 16) entry.markerOffsets.push(offset);
          } else entry.functions.add(meaning.name);
          libraryMarkers.set(meaning.library.id, entry);
          break;
        }
        case 'protocol':
          if (meaning.pattern.role !== 'suite-anchor' || suiteReads++ < MAX_SUITE_READS) protocolHits.push({ pattern, offset });
          break;
        default:
          if (anchors.length < MAX_ANCHORS) anchors.push({ kind: meaning.type === 'der' ? meaning.kind : meaning.type, offset });
      }
    },
    options.signal,
  );

  const out = emptyDetections(path);
  for (const [pattern, { count, offsets }] of constants) {
    const meaning = meanings[pattern]!;
    if (meaning.type !== 'constant') continue;
    const { signature } = meaning;
    out.algorithms.push({ algorithm: signature.algorithm, parameter: signature.parameter, method: signature.isName ? 'algorithm-name' : 'constant-table', what: `${signature.algorithm} ${signature.what}`, offset: offsets[0], kind: signature.kind, count });
  }
  out.libraries = await libraries(libraryMarkers, read);
  for (const library of out.libraries) {
    for (const spec of library.algorithms) out.algorithms.push({ ...spec, method: 'library-symbol', what: `${library.name} function or string`, offset: library.offset, kind: 'crypto', library: library.name });
  }
  out.protocols = await protocols(protocolHits, read);
  out.materials = await materials(anchors, read, size, options);
  return out;
}

interface LibraryFound {
  markers: Set<string>;
  functions: Set<string>;
  offset: number;
  /** First marker offsets: the version string sits next to one of them. */
  markerOffsets: number[];
}

async function libraries(found: Map<string, LibraryFound>, read: RangeReader): Promise<LibraryHit[]> {
  const out: LibraryHit[] = [];
  for (const [id, entry] of found) {
    // A library is present only when one of its own markers is; function names alone can be imports.
    if (!entry.markers.size) continue;
    const signature = LIBRARIES.find((l) => l.id === id);
    if (!signature) continue;
    let version: string | undefined;
    for (const at of signature.version ? entry.markerOffsets : []) {
      version = signature.version!.exec((await read(Math.max(0, at - 16), 96)).toString('latin1'))?.[1];
      if (version) break;
    }
    const functions = [...entry.functions].sort();
    const specs = new Map(functions.map((name) => [signature.functions[name]!, parseSpec(signature.functions[name]!)]));
    for (const marker of entry.markers) if (signature.functions[marker]) specs.set(signature.functions[marker]!, parseSpec(signature.functions[marker]!));
    out.push({ id, name: signature.name, version, markers: [...entry.markers].sort(), functions, algorithms: [...specs.values()], offset: entry.offset });
  }
  return out;
}

async function protocols(hits: Array<{ pattern: number; offset: number }>, read: RangeReader): Promise<ProtocolHit[]> {
  const { meanings } = patternSet();
  const byProtocol = new Map<ProtocolName, ProtocolHit & { markers: number }>();
  const get = (protocol: ProtocolName, offset: number) => {
    let hit = byProtocol.get(protocol);
    if (!hit) byProtocol.set(protocol, (hit = { protocol, method: 'protocol-string', versions: [], cipherSuites: [], names: [], algorithms: [], offset, markers: 0 }));
    return hit;
  };
  for (const { pattern, offset } of hits) {
    const meaning = meanings[pattern]!;
    if (meaning.type !== 'protocol') continue;
    const p = meaning.pattern;
    const hit = get(p.protocol, offset);
    if (p.role === 'marker') hit.markers++;
    else if (p.role === 'version' && !hit.versions.includes(p.value!)) hit.versions.push(p.value!);
    else if (p.role === 'algorithm' && !hit.names.includes(p.value!)) {
      hit.names.push(p.value!);
      hit.algorithms.push(...p.algorithms!.map((spec) => ({ ...parseSpec(spec), via: p.value })));
    } else if (p.role === 'suite-anchor') {
      const from = Math.max(0, offset - 64);
      const suite = suiteAround((await read(from, 160)).toString('latin1'), offset - from);
      if (suite && !hit.cipherSuites.includes(suite)) {
        hit.cipherSuites.push(suite);
        hit.algorithms.push(...suiteAlgorithms(suite).map((spec) => ({ ...spec, via: suite })));
      }
    }
  }
  const out: ProtocolHit[] = [];
  for (const { markers, ...hit } of byProtocol.values()) {
    // SSH algorithm names are shared with key files and docs: require the banner; TLS needs a version or suite.
    if (hit.protocol === 'SSH' && !markers) continue;
    if (hit.protocol === 'TLS' && !hit.cipherSuites.length && !hit.versions.length) continue;
    hit.cipherSuites.sort();
    out.push(hit);
  }
  return out;
}

async function materials(anchors: Pending[], read: RangeReader, size: number, options: DetectOptions): Promise<Material[]> {
  const found: Material[] = [];
  let skipUntil = -1;
  for (const { kind, offset } of anchors.sort((a, b) => a.offset - b.offset)) {
    options.signal?.throwIfAborted();
    try {
      if (kind === 'pem') {
        if (offset < skipUntil) continue;
        const block = parsePemBlock((await read(offset, 70_000)).toString('latin1'), offset, options.now);
        if (block) {
          found.push(...block.items);
          skipUntil = offset + block.length;
        }
      } else if (kind === 'ssh-public-key') {
        const line = parseSshPublicKeyLine((await read(offset, 16_384)).toString('latin1'));
        if (line) found.push({ kind: 'public-key', format: 'SSH public key', encoding: line.sshType, offset, length: line.length, key: line.key, keyId: line.keyId, comment: line.comment });
      } else if (kind === 'usign') {
        const item = parseUsign((await read(offset, 1024)).toString('latin1'));
        if (item) found.push({ kind: item.kind, format: 'usign', encoding: 'Ed25519', offset, length: item.length, key: item.key, keyId: item.keyId, encrypted: item.encrypted, comment: item.comment, context: { fingerprint: item.fingerprint } });
      } else {
        if (offset < skipUntil) continue;
        found.push(...(await carveAt(kind, offset, read, options.now)));
      }
    } catch {
      // A damaged candidate is not material; the scan goes on.
    }
  }
  // Dropbear host keys are small files starting with a length-prefixed key type ('\0\0\0\x07ssh-rsa', ...).
  if (size > 16 && size <= 65536 && (await read(0, 8)).toString('latin1').startsWith('\0\0\0')) {
    const dropbear = parseDropbearKey(await read(0, size));
    if (dropbear) found.push({ kind: 'private-key', format: 'dropbear', encoding: dropbear.sshType, offset: 0, length: dropbear.length, key: dropbear.key, keyId: dropbear.keyId, encrypted: false });
  }
  return outermost(found);
}

export type { AlgorithmHit };
