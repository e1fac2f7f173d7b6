// Kernel versions from boot-image headers, for when the kernel body cannot be read: the bzImage setup header's
// kernel_version string (kept by the bzImage handler in FileNode.meta.kernelVersion) and the legacy uImage name
// ('MIPS OpenWrt Linux-5.4.43'), which the uImage handler uses as the payload's file name.
import { posix } from 'node:path';
import type { Candidate, FileView, Identifier } from './identifier.js';
import { familyById } from './package-families.js';
import { candidateFromHit } from './version-signatures.identifier.js';

const BZ_VERSION = /^(\d+\.\d+(?:\.\d+)?)[^\s]* \(/;
const UIMAGE_NAME = /(?:^|[\s_-])Linux[-_ ](\d+\.\d+(?:\.\d+)?)(?:$|[^\d.])/;

/**
 * The release the kernel's banner patterns read from the header's string, which is the banner without its
 * 'Linux version ' and compiler parts: a distribution kernel's upstream release ('… Debian 6.1.192-3', not its ABI
 * name 6.1.0-57), as from the banner in the kernel's body.
 */
function bannerVersion(patterns: ReadonlyArray<{ regex: RegExp }>, kernelVersion: string): string | undefined {
  const banner = `Linux version ${kernelVersion}`;
  for (const { regex } of patterns) {
    const version = regex.exec(banner)?.slice(1).find((group) => group !== undefined);
    if (version) return version;
  }
  return undefined;
}

export const kernelHeadersIdentifier: Identifier = {
  id: 'kernel-headers',
  description: 'bzImage kernel_version and uImage names (methods bzimage-header, uimage-name)',
  selects: (node) => typeof node.meta?.kernelVersion === 'string' || (node.format === 'uimage' && UIMAGE_NAME.test(posix.basename(node.path))),
  async identify(file: FileView): Promise<Candidate[]> {
    const family = familyById('linux-kernel')!;
    const kernelVersion = file.node.meta?.kernelVersion;
    let version: string | undefined;
    let method = '';
    let match = '';
    if (typeof kernelVersion === 'string' && BZ_VERSION.test(kernelVersion)) {
      version = bannerVersion(family.patterns, kernelVersion) ?? BZ_VERSION.exec(kernelVersion)![1];
      method = 'bzimage-header';
      match = kernelVersion.slice(0, 200);
    } else {
      const name = posix.basename(file.node.path);
      const m = UIMAGE_NAME.exec(name);
      if (m) {
        version = m[1];
        method = 'uimage-name';
        match = name;
      }
    }
    if (!version) return [];
    const candidate = candidateFromHit(family, { version, match, offset: 0, confidence: 0.75 }, file.node);
    candidate.evidence = { path: file.node.path, method, match };
    return [candidate];
  },
};
