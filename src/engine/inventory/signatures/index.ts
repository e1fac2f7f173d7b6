// The version-signature table: every family group, concatenated. Adding a family is one entry in its group.
import type { VersionSignature } from '../signature.js';
import { checkedProductSignatures } from './checked-products.js';
import { cryptoSignatures } from './crypto.js';
import { firmwareSignatures } from './firmware.js';
import { kernelBootSignatures } from './kernel-boot.js';
import { languageSignatures } from './languages.js';
import { librarySignatures } from './libraries.js';
import { moreLibrarySignatures } from './libraries-more.js';
import { networkSignatures } from './network.js';
import { serviceSignatures } from './services.js';
import { systemSignatures } from './system.js';
import { toolSignatures } from './tools.js';
import { webSignatures } from './web.js';

export const signatures: readonly VersionSignature[] = [
  ...kernelBootSignatures,
  ...firmwareSignatures,
  ...cryptoSignatures,
  ...networkSignatures,
  ...serviceSignatures,
  ...webSignatures,
  ...systemSignatures,
  ...toolSignatures,
  ...librarySignatures,
  ...moreLibrarySignatures,
  ...languageSignatures,
  ...checkedProductSignatures,
];
