// The findings PDF's sections after the summary: coverage, findings by type and severity (rows, then a detail
// block for each high or critical finding), components, cryptographic material, binaries and malicious code.
import { SEVERITIES } from '../engine/types.js';
import { componentLabel, findingLabel, firstSentence, kevDetail } from './findings-digest.js';
import type { FindingsModel } from './findings-model.js';
import { incompleteText } from './findings-pdf-front.js';
import type { FindingsExtras } from './findings-extras.js';
import { banner, bottomOf, ensureSpace, facts, factsHeight, FONT, heading, MUTED, paragraph, table, TEXT, usableWidth, type Doc } from './pdf-parts.js';
import {
  devicePath, devicePaths, evidenceText, FINDING_TYPE_LABEL, FINDING_TYPES, humanDate, JUSTIFICATION_LABEL, plural, PROBLEM_LEVEL_LABEL, SEVERITY_COLOR, SEVERITY_LABEL, STATUS_LABEL,
} from './report-labels.js';
import type { ReportFinding, StatusChangeRecord } from './report.js';

export function coverage(doc: Doc, model: FindingsModel, extras: FindingsExtras): void {
  const c = extras.coverage;
  const incomplete = incompleteText(model);
  if (incomplete) banner(doc, 'ANALYSIS INCOMPLETE', incomplete);
  else if (c.complete === true) paragraph(doc, 'Analysis complete: every part of the image that Firmscope recognised was read.', { color: '#2e6b2e' });
  doc.moveDown(0.3);
  facts(doc, [
    ['Files extracted', c.files.toLocaleString('en-US')],
    ['Share recognised', c.recognised === undefined ? 'not recorded' : `${(c.recognised * 100).toFixed(1)}% of the image's bytes are in a recognised format`],
    ['Components', plural(c.components, 'component') + ' identified'],
    ['Binaries', plural(c.binaries, 'executable or library', 'executables and libraries') + ' checked for hardening'],
    ['Problems', (['error', 'warning', 'info'] as const).map((l) => `${PROBLEM_LEVEL_LABEL[l]}: ${c.problems[l]}`).join(' · ')],
  ]);
  heading(doc, 'Formats unpacked', 11);
  table(doc, [{ header: 'Format', width: 0.6 }, { header: 'Parts unpacked', width: 0.4 }], c.formats.map(([id, n]) => [id, String(n)]), 8, 'No container format was recognised.');
  heading(doc, 'What could not be fully analysed', 11);
  table(doc, [{ header: 'Level', width: 0.12 }, { header: 'Where', width: 0.38 }, { header: 'What happened', width: 0.5 }],
    c.problemRows.map((p) => [p.level === 'error' ? 'Error' : 'Warning', p.where, p.message]), 7, 'Nothing: no errors or warnings were recorded.');
  if (c.problemsNotShown) paragraph(doc, `${plural(c.problemsNotShown, 'more problem')} not listed here; the full list is in the scan's problems.`, { size: 8, color: MUTED });
}

/** The KEV column: the date CISA listed the finding as exploited (in red), 'Yes' when the catalogue gave none. */
const kevCell = (f: ReportFinding) => (f.isKev ? { text: f.kev ? humanDate(f.kev.dateAdded, true) : 'Yes', color: SEVERITY_COLOR.critical, bold: true } : '');

const sevCell = (f: ReportFinding) => ({ text: SEVERITY_LABEL[f.severity], color: SEVERITY_COLOR[f.severity], bold: true });

/**
 * The row's words: the finding's name (a vulnerability's id, a rule finding's name and rule), and for a
 * vulnerability without a detail block, the first sentence of its description (the detail holds the rest).
 */
function rowTitle(f: ReportFinding, detailed: boolean): string {
  const label = findingLabel(f);
  if (detailed || label !== f.pname) return label;
  const text = f.description ?? f.title ?? (f.name !== f.pname ? f.name : '');
  return text ? `${label}\n${firstSentence(text, 140)}` : label;
}

export function isDetailed(f: ReportFinding): boolean {
  return f.severity === 'critical' || f.severity === 'high';
}

export function findingsSection(doc: Doc, model: FindingsModel, history: Record<string, StatusChangeRecord[]>): void {
  paragraph(doc, 'One row per finding, most severe first. Each critical and high finding then has a detail block with its description, scores, affected files, evidence and triage history.', { size: 9, color: MUTED });
  for (const type of FINDING_TYPES) {
    const list = model.findings.filter((f) => f.findingType === type);
    if (!list.length) continue;
    heading(doc, `${FINDING_TYPE_LABEL[type]} (${list.length})`, 11);
    if (type !== 'dependencyVulnerability') {
      // a rule's finding has no component, version, scores or KEV entry: its name says what and where
      table(doc, [{ header: 'Severity', width: 0.09 }, { header: 'Finding', width: 0.77 }, { header: 'Status', width: 0.14 }],
        list.map((f) => [sevCell(f), rowTitle(f, isDetailed(f)), STATUS_LABEL[f.issueStatus]]), 7);
      continue;
    }
    table(doc, [
      { header: 'Severity', width: 0.08 }, { header: 'Finding', width: 0.3 }, { header: 'Component', width: 0.17 }, { header: 'Fixed in', width: 0.11 },
      { header: 'CVSS', width: 0.05 }, { header: 'EPSS', width: 0.06 }, { header: 'KEV since', width: 0.09 }, { header: 'Status', width: 0.14 },
    ], list.map((f) => [
      sevCell(f), rowTitle(f, isDetailed(f)), componentLabel(f.component) || '-', f.knownFixedVersion ?? '-', f.cvssLatestBaseScore?.toFixed(1) ?? '-',
      f.epss ? `${(f.epss.probability * 100).toFixed(1)}%` : '-', kevCell(f), STATUS_LABEL[f.issueStatus],
    ]), 7);
  }
  const detailed = model.findings.filter(isDetailed);
  if (!detailed.length) return;
  doc.addPage();
  heading(doc, 'Critical and high findings in detail');
  for (const f of detailed) detail(doc, f, history[f.id] ?? []);
}

function cvssText(f: ReportFinding): string | undefined {
  const c = f.cvss;
  const v = c?.cvssV4 ? { name: 'CVSS 4.0', ...c.cvssV4 } : c?.cvssV3 ? { name: `CVSS ${c.cvssV3.version ?? '3'}`, ...c.cvssV3 } : c?.cvssV2 ? { name: 'CVSS 2.0', ...c.cvssV2 } : undefined;
  if (v) return `${v.baseScore.toFixed(1)} (${v.name}) ${v.vector}`;
  return f.cvssLatestBaseScore !== undefined ? f.cvssLatestBaseScore.toFixed(1) : undefined;
}

/** How the finding was matched, in words: the record and criterion of each match, the evidence of each place. */
export function evidenceLines(f: ReportFinding): string[] {
  const lines: string[] = [];
  const matches = (f.match as { matches?: Array<Record<string, unknown>> } | undefined)?.matches ?? [];
  for (const m of matches.slice(0, 3)) {
    const str = (k: string) => (typeof m[k] === 'string' || typeof m[k] === 'number' ? String(m[k]) : undefined);
    const source = str('source')?.toUpperCase() ?? 'The vulnerability database';
    const rule = str('criterion') ?? str('range') ?? str('package');
    const has = str('version') ? `version ${str('version')}` : 'this component';
    lines.push(`${source} record ${str('record') ?? f.pname} names ${rule ?? 'this component'}${str('kind') === 'range' ? ' (a version range)' : ''}; the image has ${has}${str('componentCpe') ? ` (${str('componentCpe')})` : ''}.`);
  }
  for (const o of f.occurrences) if (o.evidence) lines.push(`${devicePath(o.path)}: ${evidenceText(devicePaths(o.evidence))}`);
  return lines.slice(0, 6);
}

export function historyLine(h: StatusChangeRecord): string {
  const why = h.justification ? ` (${JUSTIFICATION_LABEL[h.justification]})` : '';
  return `${humanDate(h.time)} · ${STATUS_LABEL[h.status]}${why}${h.author ? ` · ${h.author}` : ''}${h.comment ? `: “${h.comment}”` : ''}`;
}

/**
 * A detail block's facts, shared by the PDF and the HTML report: type, component, fix, scores, KEV, aliases,
 * weakness class, affected files, evidence, status and triage history (the references are apart: links in HTML).
 */
export function detailFacts(f: ReportFinding, history: StatusChangeRecord[]): Array<[string, string]> {
  const files = f.occurrences.map((o) => devicePath(o.path) + (o.offset !== undefined ? ` at offset ${o.offset}` : ''));
  const evidence = evidenceLines(f);
  // aliases of a vulnerability (GHSA, OSV), and its weakness class; a rule's id is in the heading already
  const ids = f.identifiers.flatMap((i) => [i.cve, i.ghsa, i.osv]).filter((v): v is string => !!v && v !== f.pname);
  const cwes = f.identifiers.map((i) => i.cwe).filter((v): v is string => !!v);
  const cvss = cvssText(f);
  return [
    ['Type', FINDING_TYPE_LABEL[f.findingType]],
    ...(f.component ? [['Component', componentLabel(f.component)] as [string, string]] : []),
    ['Fix', f.recommendedAction ?? (f.knownFixedVersion ? `Upgrade to ${f.knownFixedVersion} or later.` : 'No fixed version is known.')],
    ...(cvss ? [['CVSS', cvss] as [string, string]] : []),
    ...(f.epss ? [['EPSS', `${(f.epss.probability * 100).toFixed(2)}% chance of exploitation in the next 30 days (higher than ${(f.epss.percentile * 100).toFixed(0)}% of all CVEs)`] as [string, string]] : []),
    ...(f.isKev ? [['Known exploited', kevDetail(f)!] as [string, string]] : []),
    ...(ids.length ? [['Also known as', ids.join(', ')] as [string, string]] : []),
    ...(cwes.length ? [['Weakness class', cwes.join(', ')] as [string, string]] : []),
    ['Affected files', files.length ? `${files.slice(0, 8).join(', ')}${files.length > 8 ? ` and ${files.length - 8} more` : ''}` : '-'],
    ...(evidence.length ? [['Evidence', evidence.join('\n')] as [string, string]] : []),
    ['Status', `${STATUS_LABEL[f.issueStatus]}${f.justification ? ` (${JUSTIFICATION_LABEL[f.justification]})` : ''}${f.statusComment && !history.length ? `: “${f.statusComment}”` : ''}`],
    ...(history.length ? [['Triage history', history.map(historyLine).join('\n')] as [string, string]] : []),
  ];
}

/** The description a detail block prints (once in the whole report), if any. */
export function detailText(f: ReportFinding): string | undefined {
  if (f.description) return f.description;
  return f.name !== f.pname && findingLabel(f) === f.pname ? f.name : undefined;
}

function detail(doc: Doc, f: ReportFinding, history: StatusChangeRecord[]): void {
  const text = detailText(f);
  const refs = (f.references ?? []).slice(0, 5).map((r) => r.url);
  const facts_ = detailFacts(f, history);
  // the references before the status, as the HTML report has them
  const at = facts_.findIndex(([k]) => k === 'Status');
  if (refs.length) facts_.splice(at, 0, ['References', refs.join('\n')]);
  // a block that fits on a page starts on a new one rather than being split; a longer one takes at least 110 points
  doc.font(FONT.regular).fontSize(8.5);
  const height = 40 + (text ? Math.ceil((doc.widthOfString(text) * 1.1) / usableWidth(doc)) * doc.currentLineHeight(true) : 0) + factsHeight(doc, facts_, 95, 8);
  const room = bottomOf(doc) - doc.page.margins.top;
  ensureSpace(doc, height <= room ? height : 110);
  const left = doc.page.margins.left;
  const top = doc.y + 6;
  doc.rect(left, top, 4, 14).fill(SEVERITY_COLOR[f.severity]);
  doc.font(FONT.bold).fontSize(10.5).fillColor(SEVERITY_COLOR[f.severity]).text(`${SEVERITY_LABEL[f.severity]} · ${findingLabel(f)}`, left + 10, top + 1, { width: usableWidth(doc) - 10 });
  doc.x = left;
  doc.moveDown(0.2);
  if (text) paragraph(doc, text, { size: 8.5 });
  doc.moveDown(0.2);
  facts(doc, facts_, 95, 8);
  doc.moveTo(left, doc.y + 2).lineTo(left + usableWidth(doc), doc.y + 2).lineWidth(0.3).strokeColor('#c8ced6').stroke();
  doc.moveDown(0.5);
}

export function componentsSection(doc: Doc, extras: FindingsExtras): void {
  table(doc, [
    { header: 'Component', width: 0.22 }, { header: 'Version', width: 0.18 }, { header: 'Kind', width: 0.12 }, { header: 'Licence', width: 0.16 },
    ...SEVERITIES.slice(0, 4).map((s) => ({ header: SEVERITY_LABEL[s], width: 0.08 })),
  ], extras.components.map((c) => [
    c.name, c.version ?? 'unknown', c.type, c.licenses.join(', ') || 'not known',
    ...SEVERITIES.slice(0, 4).map((s) => (c.findings[s] ? { text: String(c.findings[s]), color: SEVERITY_COLOR[s], bold: true } : '')),
  ]), 7, 'No components were identified.');
}

export function cryptoSection(doc: Doc, extras: FindingsExtras): void {
  const k = extras.crypto;
  paragraph(doc, `Quantum readiness score: ${k.score} / 100 (${k.algorithms} algorithms). The score is the share of the detected algorithms that stay safe against a quantum computer; the separate post-quantum cryptography (PQC) report assesses each algorithm and what to migrate to.`, { size: 9 });
  heading(doc, 'Private keys', 11);
  table(doc, [{ header: 'Key', width: 0.3 }, { header: 'Protection', width: 0.22 }, { header: 'Files', width: 0.48 }], k.privateKeys.map((p) => [p.name, p.protection, p.files]), 7.5, 'No private keys were found in the image.');
  heading(doc, 'Certificates', 11);
  table(doc, [{ header: 'Certificate', width: 0.34 }, { header: 'Key', width: 0.14 }, { header: 'Expires', width: 0.14 }, { header: 'State', width: 0.12 }, { header: 'File', width: 0.26 }],
    k.certificates.map((c) => [c.name, c.key, c.expires, c.expired ? { text: 'Expired', color: SEVERITY_COLOR.high, bold: true } : c.state, c.file]), 7.5, 'No certificates were found in the image.');
  heading(doc, 'Weak algorithms', 11);
  table(doc, [{ header: 'Algorithm', width: 0.25 }, { header: 'Why it is weak', width: 0.4 }, { header: 'Used by', width: 0.35 }], k.weak.map((w) => [w.name, w.why, w.usedBy]), 7.5, 'No broken or deprecated algorithms were detected.');
}

/** The sentence for a scan without malicious code, with the rule set's fingerprint to tell rule versions apart. */
export function noMaliciousCode(extras: FindingsExtras): string {
  const fingerprint = extras.ruleSet ? ` Rule set fingerprint (to compare scans): ${extras.ruleSet.replace(/^sha256:/, '').slice(0, 12)}.` : '';
  return `No malicious code was found by Firmscope's built-in rules (YARA rules and known-bad file hashes).${fingerprint}`;
}

export function binariesSection(doc: Doc, model: FindingsModel, extras: FindingsExtras): void {
  const b = extras.binaries;
  if (!b) paragraph(doc, 'This scan did not record binary hardening.', { color: MUTED });
  else {
    paragraph(doc, `${plural(b.count, 'executable or library', 'executables and libraries')} were checked. A protection missing from a network-facing program makes a memory-safety bug in it easier to exploit.`, { size: 9 });
    doc.moveDown(0.3);
    table(doc, [{ header: 'Protection', width: 0.4 }, { header: 'What it does', width: 0.42 }, { header: 'Binaries with it', width: 0.18 }],
      b.protections.map((p) => [p.label, p.purpose, `${p.have} of ${p.of}`]), 7.5);
    heading(doc, 'Network-facing programs missing protections', 11);
    table(doc, [{ header: 'Program', width: 0.45 }, { header: 'Missing', width: 0.35 }, { header: 'Unsafe calls (strcpy, system, …)', width: 0.2 }],
      b.exposed.map((e) => [e.path, e.missing.join(', '), String(e.unsafeUses)]), 7.5, 'Every network-facing program has the checked protections.');
  }
  heading(doc, 'Malicious code', 11);
  const malicious = model.findings.filter((f) => f.findingType === 'maliciousCode');
  if (!malicious.length) paragraph(doc, noMaliciousCode(extras), { size: 9 });
  else table(doc, [{ header: 'Severity', width: 0.1 }, { header: 'Match', width: 0.3 }, { header: 'Files', width: 0.45 }, { header: 'Status', width: 0.15 }],
    malicious.map((f) => [sevCell(f), findingLabel(f), f.occurrences.map((o) => devicePath(o.path)).join(', '), STATUS_LABEL[f.issueStatus]]), 7.5);
  doc.fillColor(TEXT);
}
