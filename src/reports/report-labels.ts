// Words and colours a reader sees in the findings PDF and HTML reports: every identifier the engine or the
// workflow uses ('dependencyVulnerability', 'inProgress', 'vulnerable_code_not_present') has its human label here,
// and each severity has one fixed colour (white text on it passes WCAG AA contrast, for the HTML report's checks).
import type { Component, FindingType, ProblemLevel, Severity, VexJustification } from '../engine/types.js';
import { byteSize } from '../format/byte-size.js';
import type { ReportFinding } from './report.js';

export type IssueStatus = ReportFinding['issueStatus'];
export const ISSUE_STATUSES: readonly IssueStatus[] = ['new', 'inProgress', 'remediated', 'rejected'];
export const FINDING_TYPES: readonly FindingType[] = ['dependencyVulnerability', 'knownVulnerability', 'maliciousCode'];

export const SEVERITY_LABEL: Record<Severity, string> = { critical: 'Critical', high: 'High', medium: 'Medium', low: 'Low', informational: 'Informational' };
export const SEVERITY_COLOR: Record<Severity, string> = { critical: '#7f1d1d', high: '#b3261e', medium: '#a64b00', low: '#1d4ed8', informational: '#52525b' };

export const FINDING_TYPE_LABEL: Record<FindingType, string> = {
  dependencyVulnerability: 'Dependency vulnerability',
  knownVulnerability: 'Security weakness',
  maliciousCode: 'Malicious code',
};

export const STATUS_LABEL: Record<IssueStatus, string> = { new: 'New', inProgress: 'In progress', remediated: 'Remediated', rejected: 'Rejected (not affected)' };

export const JUSTIFICATION_LABEL: Record<VexJustification, string> = {
  component_not_present: 'Component not present',
  vulnerable_code_not_present: 'Vulnerable code not present',
  vulnerable_code_not_in_execute_path: 'Vulnerable code never runs',
  vulnerable_code_cannot_be_controlled_by_adversary: 'Vulnerable code cannot be controlled by an attacker',
  inline_mitigations_already_exist: 'Mitigations already in place',
};

export const COMPONENT_KIND_LABEL: Record<Component['type'], string> = {
  application: 'Program', library: 'Library', 'operating-system': 'Operating system', firmware: 'Firmware', framework: 'Framework', device: 'Device', file: 'File',
};

export const PROBLEM_LEVEL_LABEL: Record<ProblemLevel, string> = { error: 'Errors (parts not analysed)', warning: 'Warnings (partly read)', info: 'Notes' };

export const ASSET_TYPE_LABEL: Record<string, string> = {
  algorithm: 'Algorithm', certificate: 'Certificate', 'private-key': 'Private key', 'public-key': 'Public key', protocol: 'Protocol',
  'related-crypto-material': 'Other key material', library: 'Crypto library',
};

/** An image's size in binary units with the exact count beside it: '3.9 MiB (4,063,232 bytes)'. */
export function byteSizeWithCount(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${byteSize(bytes)} (${bytes.toLocaleString('en-US')} bytes)`;
}

// One formatter for every date: toLocaleDateString builds one a call (a fifth of a large report's time).
const DATE_FORMAT = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/** "27 Nov 2026, 22:10 UTC" from an ISO time; the date alone with `dateOnly`. */
export function humanDate(iso: string, dateOnly = false): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const date = DATE_FORMAT.format(d);
  return dateOnly ? date : `${date}, ${d.toISOString().slice(11, 16)} UTC`;
}

/**
 * A version as a reader can take it in: a build hash inside it ('5.4.43-1-8b3aaa48ce5dfb66263bde9605e79a76', an
 * OpenWrt kernel's) is cut to its first 8 digits ('5.4.43-1-8b3aaa48…'), which still tells two builds apart.
 */
export function versionLabel(version: string): string {
  return version.replace(/[0-9a-f]{20,}/gi, (hash) => `${hash.slice(0, 8)}…`);
}

/**
 * Evidence text in words: the engine separates the strings it found next to each other in a binary by ' \\0 '
 * (a NUL between them: '\\0 2.81 \\0 Dnsmasq version %s'); a reader sees them quoted ('“2.81” next to “Dnsmasq
 * version %s”').
 */
export function evidenceText(evidence: string): string {
  if (!evidence.includes('\\0')) return evidence;
  const parts = evidence.split(/\s*\\0\s*/).filter(Boolean);
  return parts.length ? `strings ${parts.map((s) => `“${s}”`).join(' next to ')}` : evidence;
}

/** "3 findings" / "1 finding". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/**
 * A file's path as it is on the device: the engine's paths name the extraction folders they were unpacked into
 * ('fw.bin_extract/0-3647665.squashfs-v4/bin/busybox'); a reader knows '/bin/busybox'.
 */
export function devicePath(path: string): string {
  const inner = /^.*_extract\/[^/]+(\/.*)$/.exec(path);
  return inner ? inner[1]! : path;
}

/** Replaces every extraction path inside a text (evidence lines quote them). */
export function devicePaths(text: string): string {
  return text.replace(/\S*_extract\/[^/\s]+(\/\S*)/g, '$1');
}
