// Every component identifier, in order (package databases first: their records name the packages that the
// binary identifiers then confirm). Adding an identifier is one file plus one line here.
import type { Identifier } from './identifier.js';
import { versionSignatureIdentifier } from './version-signatures.identifier.js';

export const identifiers: Identifier[] = [
  versionSignatureIdentifier,
];
