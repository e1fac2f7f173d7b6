// Every component identifier, in order (package databases first: their records name the packages that the
// binary identifiers then confirm). Adding an identifier is one file plus one line here.
import { amdPspIdentifier } from './amd-psp.identifier.js';
import { apkInstalledIdentifier } from './apk-installed.identifier.js';
import { bearSslMarkersIdentifier } from './bearssl-markers.identifier.js';
import { dpkgStatusIdentifier } from './dpkg-status.identifier.js';
import { edk2MarkersIdentifier } from './edk2-markers.identifier.js';
import { elfMetadataIdentifier } from './elf-metadata.identifier.js';
import { goModulesIdentifier } from './go-modules.identifier.js';
import { dotnetDepsIdentifier } from './dotnet-deps.identifier.js';
import { erlangAppsIdentifier } from './erlang-apps.identifier.js';
import { luaRocksIdentifier } from './lua-rocks.identifier.js';
import { perlModulesIdentifier } from './perl-modules.identifier.js';
import type { Identifier } from './identifier.js';
import { intelMeIdentifier } from './intel-me.identifier.js';
import { javaArchivesIdentifier } from './java-archives.identifier.js';
import { kernelHeadersIdentifier } from './kernel-headers.identifier.js';
import { nodePackagesIdentifier } from './node-packages.identifier.js';
import { opkgStatusIdentifier } from './opkg-status.identifier.js';
import { openwrtMetadataIdentifier } from './openwrt-metadata.identifier.js';
import { optionRomIdentifier } from './option-rom.identifier.js';
import { osReleaseIdentifier } from './os-release.identifier.js';
import { peVersionIdentifier } from './pe-version.identifier.js';
import { phpComposerIdentifier } from './php-composer.identifier.js';
import { pythonPackagesIdentifier } from './python-packages.identifier.js';
import { rpmDbIdentifier } from './rpm-db.identifier.js';
import { rustAuditIdentifier } from './rust-audit.identifier.js';
import { uefiModulesIdentifier } from './uefi-modules.identifier.js';
import { versionSignatureIdentifier } from './version-signatures.identifier.js';

export const identifiers: Identifier[] = [
  opkgStatusIdentifier,
  dpkgStatusIdentifier,
  apkInstalledIdentifier,
  rpmDbIdentifier,
  pythonPackagesIdentifier,
  nodePackagesIdentifier,
  phpComposerIdentifier,
  javaArchivesIdentifier,
  erlangAppsIdentifier,
  perlModulesIdentifier,
  luaRocksIdentifier,
  dotnetDepsIdentifier,
  osReleaseIdentifier,
  openwrtMetadataIdentifier,
  elfMetadataIdentifier,
  goModulesIdentifier,
  rustAuditIdentifier,
  peVersionIdentifier,
  uefiModulesIdentifier,
  edk2MarkersIdentifier,
  optionRomIdentifier,
  intelMeIdentifier,
  amdPspIdentifier,
  kernelHeadersIdentifier,
  versionSignatureIdentifier,
  bearSslMarkersIdentifier,
];
