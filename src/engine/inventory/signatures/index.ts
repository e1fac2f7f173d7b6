// The version-signature table: every family group, concatenated. Adding a family is one entry in its group.
import type { VersionSignature } from '../signature.js';
import { cryptoSignatures } from './crypto.js';
import { kernelBootSignatures } from './kernel-boot.js';
import { languageSignatures } from './languages.js';
import { librarySignatures } from './libraries.js';
import { networkSignatures } from './network.js';
import { systemSignatures } from './system.js';
import { webSignatures } from './web.js';

export const signatures: readonly VersionSignature[] = [
  ...kernelBootSignatures,
  ...cryptoSignatures,
  ...networkSignatures,
  ...webSignatures,
  ...systemSignatures,
  ...librarySignatures,
  ...languageSignatures,
];
