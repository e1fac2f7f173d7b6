// The single pattern set every file is scanned with: constant tables, library markers and functions, protocol
// strings, and the anchors of keys and certificates (PEM armour, SSH key lines, usign comments, DER anchors).
// Built once; each pattern carries what a hit on it means.
import { constantSignatures, type ConstantSignature } from './constants/index.js';
import { DER_ANCHORS, type DerKind } from './der-carver.js';
import { LIBRARIES, type LibrarySignature } from './libraries.js';
import { PROTOCOL_PATTERNS, type ProtocolPattern } from './protocols.js';
import { MultiPatternScanner } from './scanner.js';
import { SSH_PUBLIC_KEY_TYPES } from './ssh-keys.js';

export type PatternMeaning =
  | { type: 'constant'; signature: ConstantSignature }
  | { type: 'library-marker'; library: LibrarySignature; marker: string }
  | { type: 'library-function'; library: LibrarySignature; name: string; spec: string }
  | { type: 'protocol'; pattern: ProtocolPattern }
  | { type: 'der'; kind: DerKind }
  | { type: 'pem' }
  | { type: 'ssh-public-key' }
  | { type: 'usign' };

export interface PatternSet {
  scanner: MultiPatternScanner;
  meanings: PatternMeaning[];
}

let built: PatternSet | undefined;

export function patternSet(): PatternSet {
  if (built) return built;
  const entries: Array<[Buffer, PatternMeaning]> = [];
  const text = (s: string): Buffer => Buffer.from(s, 'latin1');
  for (const signature of constantSignatures) entries.push([signature.bytes, { type: 'constant', signature }]);
  for (const library of LIBRARIES) {
    for (const marker of library.markers) entries.push([text(marker), { type: 'library-marker', library, marker }]);
    for (const [name, spec] of Object.entries(library.functions)) entries.push([text(name), { type: 'library-function', library, name, spec }]);
  }
  for (const pattern of PROTOCOL_PATTERNS) entries.push([text(pattern.text), { type: 'protocol', pattern }]);
  for (const anchor of DER_ANCHORS) entries.push([anchor.bytes, { type: 'der', kind: anchor.kind }]);
  entries.push([text('-----BEGIN '), { type: 'pem' }]);
  for (const type of SSH_PUBLIC_KEY_TYPES) entries.push([text(`${type} AAAA`), { type: 'ssh-public-key' }]);
  entries.push([text('untrusted comment:'), { type: 'usign' }]);
  built = { scanner: new MultiPatternScanner(entries.map(([bytes]) => bytes)), meanings: entries.map(([, meaning]) => meaning) };
  return built;
}
