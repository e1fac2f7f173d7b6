// What a reader of the findings PDF and HTML reports needs before the rows: the overall risk rating and why, the
// findings to fix first (known exploited, likely to be exploited), the top risks in plain words with the upgrade
// that removes the most findings, the triage state, and what changed since another image of the product.
import { SEVERITIES, type Severity } from '../engine/types.js';
import { genericScheme } from '../engine/vulns/version.js';
import type { FindingsModel } from './findings-model.js';
import { humanDate, ISSUE_STATUSES, plural, SEVERITY_LABEL, versionLabel, type IssueStatus } from './report-labels.js';
import type { ReportBaseline, ReportFinding } from './report.js';

/** EPSS probability from which a finding counts as likely to be exploited (10% within 30 days). */
export const HIGH_EPSS = 0.1;

export type RiskLevel = 'Critical' | 'High' | 'Medium' | 'Low' | 'None';

export interface Upgrade {
  component: string;
  version?: string;
  /** The lowest version that fixes every one of these findings. */
  to: string;
  removes: number;
  worst: Severity;
}

export interface TopRisk {
  finding: ReportFinding;
  /** One sentence for a person who does not read CVE records. */
  plain: string;
  upgrade?: Upgrade;
  /** Whether that upgrade removes this finding too (it has a known fix at or below the target). */
  upgradeFixesIt?: boolean;
}

/** One thing to do, and the open findings it removes (most urgent first). */
export interface FixAction {
  action: string;
  /** Why it comes first: known exploited, likely to be exploited, or its severity. */
  why: string;
  findings: ReportFinding[];
}

export interface FindingsDigest {
  rating: { level: RiskLevel; reason: string };
  /** What to do first: the actions that remove the known-exploited, likely-exploited, critical and high open findings. */
  actions: FixAction[];
  /** Open findings that are known exploited (CISA KEV) or likely to be (EPSS ≥ HIGH_EPSS), most urgent first. */
  fixFirst: ReportFinding[];
  topRisks: TopRisk[];
  /** Component upgrades, the one removing the most open findings first. */
  upgrades: Upgrade[];
  open: number;
  triage: Record<IssueStatus, number>;
  changes?: {
    baseline: ReportBaseline['image'];
    added: ReportFinding[];
    resolved: ReportBaseline['findings'];
    unchanged: number;
  };
}

const isOpen = (f: ReportFinding) => f.issueStatus === 'new' || f.issueStatus === 'inProgress';
const rank = (s: Severity) => SEVERITIES.indexOf(s);

/** Most urgent first: known exploited, then severity, then exploit likelihood, then CVSS. */
export function byUrgency(a: ReportFinding, b: ReportFinding): number {
  return Number(!!b.isKev) - Number(!!a.isKev) || rank(a.severity) - rank(b.severity) || (b.epss?.probability ?? 0) - (a.epss?.probability ?? 0)
    || (b.cvssLatestBaseScore ?? 0) - (a.cvssLatestBaseScore ?? 0) || a.pname.localeCompare(b.pname);
}

export function componentLabel(component: { name: string; version?: string } | undefined): string {
  return component ? `${component.name}${component.version ? ` ${versionLabel(component.version)}` : ''}` : '';
}

/**
 * How a reader sees a finding named: a vulnerability by its id ('CVE-2016-2148'); a rule's finding (a weakness,
 * malicious code) by its name, with the rule's id after it ('telnetd with a built-in account "admin" (S80telnetd.sh)
 * · rule telnetd-builtin-account'), since the id alone ('telnetd-builtin-account') means nothing to them.
 */
export function findingLabel(f: Pick<ReportFinding, 'findingType' | 'pname' | 'name'>): string {
  if (f.findingType === 'dependencyVulnerability' || !f.name || f.name === f.pname) return f.pname;
  return `${f.name[0]!.toUpperCase()}${f.name.slice(1)} · rule ${f.pname}`;
}

/** The first sentence of a text, at most `max` characters. */
export function firstSentence(text: string, max = 180): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  // a stop after a space ('the filename of . or an empty one') ends no sentence
  const end = flat.search(/(?<=\S)[.!?](\s|$)/);
  const sentence = end > 0 ? flat.slice(0, end + 1) : flat;
  return sentence.length <= max ? sentence : `${sentence.slice(0, max - 1).replace(/\s+\S*$/, '')}…`;
}

/** "Known exploited since 12 May 2023": when CISA listed it in KEV (the date when the catalogue gave it). */
export function kevSince(f: Pick<ReportFinding, 'isKev' | 'kev'>): string | undefined {
  if (!f.isKev) return undefined;
  return f.kev ? `Known exploited since ${humanDate(f.kev.dateAdded, true)}` : 'Known exploited';
}

/** The detail block's KEV line: since when, and the deadline CISA set for US federal agencies. */
export function kevDetail(f: Pick<ReportFinding, 'isKev' | 'kev'>): string | undefined {
  const since = kevSince(f);
  if (!since) return undefined;
  const due = f.kev?.dueDate ? `; CISA required US federal agencies to fix it by ${humanDate(f.kev.dueDate, true)}` : '';
  return `${since}: listed in the CISA Known Exploited Vulnerabilities catalogue${due}.`;
}

/**
 * What a vulnerability lets an attacker do, in words, from its CVSS vector (4.0, 3.x or 2.0): who can attack
 * (AV, PR, UI) and what they could do (C, I, A). 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' reads "An attacker
 * on the network, without logging in, could read its data, change its data or code and make it stop working."
 */
export function cvssPlain(f: Pick<ReportFinding, 'cvss'>): string | undefined {
  const vector = f.cvss?.cvssV4?.vector ?? f.cvss?.cvssV3?.vector ?? f.cvss?.cvssV2?.vector;
  if (!vector) return undefined;
  const m = Object.fromEntries(vector.split('/').map((part) => part.split(':') as [string, string]));
  const who = { N: 'An attacker on the network', A: 'An attacker on the same local network', L: 'A user or program already on the device', P: 'Someone with the device in hand' }[m.AV ?? ''];
  if (!who) return undefined;
  const remote = m.AV === 'N' || m.AV === 'A';
  const login = m.PR
    ? { N: remote ? 'without logging in' : 'without special rights', L: remote ? 'with an ordinary account' : '', H: 'with administrator rights' }[m.PR]
    : m.Au ? { N: 'without logging in', S: 'after logging in', M: 'after logging in twice' }[m.Au] : undefined;
  const user = m.UI === 'R' || m.UI === 'P' || m.UI === 'A' ? 'if a user is tricked into an action' : undefined;
  const level = (k4: string, k3: string) => m[k4] ?? m[k3];
  const c = level('VC', 'C');
  const i = level('VI', 'I');
  const a = level('VA', 'A');
  const full = (x: string | undefined) => x === 'H' || x === 'C';
  const some = (x: string | undefined) => x === 'L' || x === 'P';
  const what = [
    full(c) ? 'read its data' : some(c) ? 'read some of its data' : undefined,
    full(i) ? 'change its data or code' : some(i) ? 'change some of its data' : undefined,
    full(a) ? 'make it stop working' : some(a) ? 'disturb its service' : undefined,
  ].filter((x): x is string => !!x);
  const could = what.length ? `${what.slice(0, -1).join(', ')}${what.length > 1 ? ' and ' : ''}${what.at(-1)}` : 'affect it in a limited way';
  const parts = [who, login, user].filter(Boolean);
  return `${parts.join(', ')}${parts.length > 1 ? ',' : ''} could ${could}.`;
}

/**
 * The risk in a line: its component, what the flaw is (the first sentence of a description of several; the
 * detail block prints the rest) or, when the description is a single sentence, what an attacker could do by its
 * CVSS vector, so that no description is printed twice; and whether it is exploited.
 */
export function plainWords(f: ReportFinding): string {
  const description = (f.description ?? '').replace(/\s+/g, ' ').trim();
  const first = description ? firstSentence(description) : '';
  const fallback = cvssPlain(f) ?? (f.title && f.title !== f.description ? f.title : f.name.startsWith(f.pname) ? 'no description was published with it.' : f.name);
  // a first sentence cut short (too long) would be a truncated copy of the description: the CVSS words instead
  const what = first && first !== description && !first.endsWith('…') ? first : fallback;
  const where = f.component ? `${componentLabel(f.component)}: ` : '';
  const exploited = f.isKev ? ' Attackers are known to exploit it.' : (f.epss?.probability ?? 0) >= HIGH_EPSS ? ' Likely to be exploited soon (EPSS).' : '';
  return `${where}${what}${exploited}`;
}

/** Per component, the upgrade to the highest known fixed version among its open findings, and how many it removes. */
function upgradesOf(open: ReportFinding[]): Upgrade[] {
  const groups = new Map<string, ReportFinding[]>();
  for (const f of open) {
    if (!f.component || !f.knownFixedVersion) continue;
    const list = groups.get(f.component.ref) ?? [];
    list.push(f);
    groups.set(f.component.ref, list);
  }
  const upgrades: Upgrade[] = [];
  for (const list of groups.values()) {
    const versions = list.map((f) => f.knownFixedVersion!);
    const to = versions.reduce((best, v) => ((genericScheme.compare(v, best) ?? 0) > 0 ? v : best));
    // Only the findings whose fix is at or below the target go away (an incomparable version is not counted).
    const removes = list.filter((f) => (genericScheme.compare(f.knownFixedVersion!, to) ?? 1) <= 0).length;
    const c = list[0]!.component!;
    upgrades.push({ component: c.name, ...(c.version ? { version: c.version } : {}), to, removes, worst: list.map((f) => f.severity).sort((a, b) => rank(a) - rank(b))[0]! });
  }
  return upgrades.sort((a, b) => b.removes - a.removes || rank(a.worst) - rank(b.worst) || a.component.localeCompare(b.component));
}

/** A finding named inside a sentence: its id, or a rule finding's name without the rule. */
function leadName(f: ReportFinding): string {
  return f.findingType === 'dependencyVulnerability' || !f.name ? f.pname : `"${f.name}"`;
}

function rating(model: FindingsModel, open: ReportFinding[], fixFirst: ReportFinding[]): FindingsDigest['rating'] {
  const kev = open.filter((f) => f.isKev);
  const count = (s: Severity) => open.filter((f) => f.severity === s).length;
  const lead = (list: ReportFinding[]) => (list[0] ? `, led by ${leadName(list[0])}${list[0].component ? ` in ${componentLabel(list[0].component)}` : ''}` : '');
  const incomplete = model.analysis && !model.analysis.complete ? ' Part of the image could not be analysed, so the real risk may be higher.' : '';
  let level: RiskLevel;
  let reason: string;
  if (kev.length) {
    level = 'Critical';
    reason = `${plural(kev.length, 'open finding is', 'open findings are')} known to be exploited by attackers (CISA KEV)${lead(kev)}.`;
  } else if (count('critical')) {
    level = 'Critical';
    reason = `${plural(count('critical'), 'open finding is', 'open findings are')} rated critical${lead(open.filter((f) => f.severity === 'critical'))}.`;
  } else if (count('high') || fixFirst.length) {
    level = 'High';
    reason = count('high')
      ? `${plural(count('high'), 'open finding is', 'open findings are')} rated high${lead(open.filter((f) => f.severity === 'high'))}.`
      : `${plural(fixFirst.length, 'open finding is', 'open findings are')} likely to be exploited soon (EPSS)${lead(fixFirst)}.`;
  } else if (count('medium')) {
    level = 'Medium';
    reason = `No critical or high findings are open; ${plural(count('medium'), 'medium finding remains', 'medium findings remain')}.`;
  } else if (open.length) {
    level = 'Low';
    reason = `Only ${plural(open.length, 'low or informational finding remains', 'low or informational findings remain')} open.`;
  } else {
    level = 'None';
    reason = model.findings.length ? 'Every finding has been remediated or rejected.' : 'The scan reported no findings.';
  }
  return { level, reason: reason + incomplete };
}

/** Why a finding is urgent, in a few words. */
export function urgency(f: ReportFinding): string {
  if (f.isKev) return `${kevSince(f)} (CISA KEV)`;
  if ((f.epss?.probability ?? 0) >= HIGH_EPSS) return `${((f.epss?.probability ?? 0) * 100).toFixed(0)}% chance of exploitation within 30 days (EPSS)`;
  return `${SEVERITY_LABEL[f.severity]} severity`;
}

/**
 * The actions that remove the urgent open findings (known or likely exploited, critical, high), most urgent first:
 * a component's findings with a known fix share one upgrade (to the version that fixes them all); a finding
 * without one gets its own recommendation.
 */
function actionsOf(open: ReportFinding[], upgrades: Upgrade[]): FixAction[] {
  const urgent = open.filter((f) => f.isKev || (f.epss?.probability ?? 0) >= HIGH_EPSS || rank(f.severity) <= rank('high'));
  const actions = new Map<string, FixAction>();
  const upgradeOf = new Map<string, Upgrade>();
  for (const f of urgent) {
    const c = f.component;
    const upgrade = c && f.knownFixedVersion ? upgrades.find((u) => u.component === c.name && u.version === c.version) : undefined;
    const action = upgrade
      ? `Upgrade ${componentLabel({ name: upgrade.component, ...(upgrade.version ? { version: upgrade.version } : {}) })} to ${upgrade.to} or later.`
      : f.recommendedAction ?? (c ? `No fixed version is recorded for ${f.pname} in ${componentLabel(c)}: find the ${c.name} release or patch that fixes it, or remove ${c.name} if it is not needed.` : 'Investigate and remove the cause.');
    const entry = actions.get(action);
    if (entry) entry.findings.push(f);
    else actions.set(action, { action, why: urgency(f), findings: [f] });
    if (upgrade) upgradeOf.set(action, upgrade);
  }
  // an upgrade also removes the component's less urgent findings that it fixes
  for (const [action, u] of upgradeOf) {
    const entry = actions.get(action)!;
    for (const f of open) {
      if (entry.findings.includes(f) || f.component?.name !== u.component || f.component.version !== u.version || !f.knownFixedVersion) continue;
      if ((genericScheme.compare(f.knownFixedVersion, u.to) ?? 1) <= 0) entry.findings.push(f);
    }
  }
  return [...actions.values()];
}

function changes(findings: ReportFinding[], baseline: ReportBaseline | undefined): FindingsDigest['changes'] {
  if (!baseline) return undefined;
  const before = new Set(baseline.findings.map((f) => f.fingerprint));
  const now = new Set(findings.map((f) => f.fingerprint));
  return {
    baseline: baseline.image,
    added: findings.filter((f) => !before.has(f.fingerprint)),
    resolved: baseline.findings.filter((f) => !now.has(f.fingerprint)),
    unchanged: findings.filter((f) => before.has(f.fingerprint)).length,
  };
}

export function findingsDigest(model: FindingsModel, baseline?: ReportBaseline): FindingsDigest {
  const open = model.findings.filter(isOpen).sort(byUrgency);
  const fixFirst = open.filter((f) => f.isKev || (f.epss?.probability ?? 0) >= HIGH_EPSS);
  const upgrades = upgradesOf(open);
  const upgradeOf = (f: ReportFinding) => (f.component ? upgrades.find((u) => u.component === f.component!.name && u.version === f.component!.version) : undefined);
  const topRisks = open.slice(0, 10).map((finding) => {
    const upgrade = upgradeOf(finding);
    const fixes = !!upgrade && finding.knownFixedVersion !== undefined && (genericScheme.compare(finding.knownFixedVersion, upgrade.to) ?? 1) <= 0;
    return { finding, plain: plainWords(finding), ...(upgrade ? { upgrade, upgradeFixesIt: fixes } : {}) };
  });
  const triage = Object.fromEntries(ISSUE_STATUSES.map((s) => [s, model.findings.filter((f) => f.issueStatus === s).length])) as Record<IssueStatus, number>;
  const changed = changes(model.findings, baseline);
  return { rating: rating(model, open, fixFirst), actions: actionsOf(open, upgrades), fixFirst, topRisks, upgrades, open: open.length, triage, ...(changed ? { changes: changed } : {}) };
}

/** A top risk's line: a vulnerability's id and its plain words; a rule finding's name says it already. */
export function riskText(risk: TopRisk): string {
  const f = risk.finding;
  if (findingLabel(f) === f.pname) return `${f.pname} — ${risk.plain}`;
  const exploited = f.isKev ? ' Attackers are known to exploit it.' : '';
  return `${findingLabel(f)}.${exploited}`;
}

/** The upgrade column of a top risk, which says whether the upgrade fixes this finding or only others. */
export function upgradeText(risk: TopRisk): string {
  const u = risk.upgrade;
  if (!u) return '-';
  const from = componentLabel({ name: u.component, ...(u.version ? { version: u.version } : {}) });
  if (risk.upgradeFixesIt) return `${from} → ${u.to}: removes ${plural(u.removes, 'finding')}`;
  return `No fix known for this one; ${from} → ${u.to} removes ${plural(u.removes, 'other finding')}`;
}

/** "Critical 3 · High 5 · …" for one line. */
export function severityLine(counts: Record<string, number>): string {
  return SEVERITIES.map((s) => `${SEVERITY_LABEL[s]} ${counts[s] ?? 0}`).join(' · ');
}
