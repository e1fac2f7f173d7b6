// Shared by the SBOM generators: the image's display name and version, a stable document identity, and how
// identification methods map onto the standards' vocabularies.
import { createHash } from 'node:crypto';
import type { ReportInput } from './report.js';

export function imageName(input: ReportInput): string {
  return input.subject?.image.name ?? input.result.image.fileName;
}

export function imageVersion(input: ReportInput): string | undefined {
  return input.subject?.image.version;
}

/** A UUID derived from the image, the scan and the time: identical inputs give identical documents. */
export function documentUuid(input: ReportInput, now: Date): string {
  const h = createHash('sha256')
    .update(`${input.result.image.hashes.sha256}\0${input.subject?.scan.id ?? ''}\0${now.toISOString()}`)
    .digest('hex');
  // RFC 4122 layout, version 5-style bits (name-based).
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** CycloneDX 1.6 evidence identity techniques for Firmscope's methods. */
export const TECHNIQUES: Record<string, string> = {
  'opkg-status': 'manifest-analysis',
  'opkg-control': 'manifest-analysis',
  'dpkg-status': 'manifest-analysis',
  'apk-installed': 'manifest-analysis',
  'os-release': 'manifest-analysis',
  'version-signature': 'binary-analysis',
  'elf-soname': 'binary-analysis',
  'elf-build-id': 'binary-analysis',
  'library-file-name': 'filename',
  'pe-version-resource': 'binary-analysis',
  'uefi-module': 'binary-analysis',
  'elf-version-definitions': 'binary-analysis',
  'bzimage-header': 'binary-analysis',
  'uimage-name': 'binary-analysis',
  'rpm-db': 'manifest-analysis',
  'openwrt-fwtool-metadata': 'manifest-analysis',
};
