// Findings report, HTML (API: findingsReport download with contentType=html; CLI: -f findings-html): the PDF's
// content as one self-contained file. Styles, the chart (inline SVG) and a small script that sorts and filters
// the findings table are inline, so it opens offline and fetches nothing; print styles lay it out on paper.
import { formatName } from '../engine/unpack/format-names.js';
import { SEVERITIES } from '../engine/types.js';
import { componentLabel, findingLabel, firstSentence, riskText, upgradeText, type FindingsDigest } from './findings-digest.js';
import type { FindingsExtras } from './findings-extras.js';
import type { FindingsModel } from './findings-model.js';
import { findingsReportParts } from './findings-report-parts.js';
import { detailFacts, detailText, isDetailed, noMaliciousCode } from './findings-pdf-body.js';
import { ACTIONS_SHOWN, fixFirstLead, imageTitle, incompleteText, RATING_COLOR, removesText } from './findings-pdf-front.js';
import { chosenSections, SECTION_TITLES } from './findings-pdf.js';
import {
  byteSizeWithCount, devicePath, FINDING_TYPE_LABEL, FINDING_TYPES, humanDate, ISSUE_STATUSES, plural, PROBLEM_LEVEL_LABEL, SEVERITY_COLOR, SEVERITY_LABEL, STATUS_LABEL,
} from './report-labels.js';
import type { FindingsSection, ReportFinding, ReportGenerator, StatusChangeRecord } from './report.js';

const esc = (s: string | number) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function table(headers: string[], rows: string[][], empty: string, caption?: string): string {
  if (!rows.length) return `<p class="muted">${esc(empty)}</p>`;
  return `<table>${caption ? `<caption>${esc(caption)}</caption>` : ''}<thead><tr>${headers.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

const sev = (s: ReportFinding['severity']) => `<span class="sev" style="background:${SEVERITY_COLOR[s]}">${esc(SEVERITY_LABEL[s])}</span>`;

const STYLE = `
:root{font-family:"DejaVu Sans",system-ui,sans-serif;color:#1a1a1a;line-height:1.4;-webkit-print-color-adjust:exact;print-color-adjust:exact}
body{margin:0 auto;max-width:1100px;padding:1.5rem}
h1{font-size:1.8rem;margin:0}h2{font-size:1.35rem;margin-top:2rem;border-bottom:2px solid #dde3ea;padding-bottom:.2rem}h3{font-size:1.05rem;margin:1.2rem 0 .4rem}
.muted{color:#4a4a4a}.facts{display:grid;grid-template-columns:11rem 1fr;gap:.15rem 1rem;margin:1rem 0}.facts dt{font-weight:bold;color:#4a4a4a}.facts dd{margin:0;overflow-wrap:anywhere}
.rating{display:flex;background:#f4f5f7;margin:1rem 0}.rating .level{color:#fff;padding:.6rem 1.2rem;min-width:8rem;text-align:center}.rating .level strong{display:block;font-size:1.6rem}.rating p{margin:.6rem 1rem}
.banner{border:2px solid #b52a2a;background:#fbeaea;padding:.5rem .8rem;margin:1rem 0}.banner strong{color:#b52a2a}
.tiles{display:grid;grid-template-columns:repeat(5,1fr);gap:.5rem;margin:1rem 0}.tile{color:#fff;border-radius:6px;text-align:center;padding:.4rem}.tile strong{display:block;font-size:1.7rem}
table{border-collapse:collapse;width:100%;font-size:.85rem;margin:.4rem 0 1rem}th,td{text-align:left;vertical-align:top;padding:.3rem .4rem;border-bottom:1px solid #c8ced6}thead th{background:#dde3ea}tbody tr:nth-child(even){background:#f6f8fa}
caption{text-align:left;font-weight:bold;padding:.2rem 0}.sev{color:#fff;border-radius:3px;padding:0 .35rem;font-weight:bold;white-space:nowrap}
.print-label{display:none}th button{font:inherit;font-weight:bold;background:none;border:0;padding:0;cursor:pointer;color:inherit}th button::after{content:" \\2195";color:#4a4a4a}
.filters{display:flex;flex-wrap:wrap;gap:.8rem;align-items:end;margin:.6rem 0}.filters label{display:flex;flex-direction:column;font-size:.85rem;font-weight:bold}
.filters input,.filters select{font:inherit;font-weight:normal;padding:.2rem}
details{border-left:4px solid #c8ced6;padding:.2rem .8rem;margin:.6rem 0}details summary{cursor:pointer;font-weight:bold}
nav ol{columns:2}a{color:#1d4ed8}
@page{margin:14mm 12mm}
@media print{body{max-width:none;padding:0;font-size:10pt}.filters,th button{display:none}.print-label{display:inline}section{break-before:page}#summary{break-before:auto}tr,details{break-inside:avoid}thead{display:table-header-group}details>*{display:block}a{color:inherit}}
`;

/** Sorting (click a column header) and filtering (text, severity, type, status) of the findings table, offline. */
const SCRIPT = `
(function(){
var t=document.getElementById('findings-table');if(!t)return;var body=t.tBodies[0];
var q=document.getElementById('filter-text'),s=document.getElementById('filter-severity'),k=document.getElementById('filter-type'),st=document.getElementById('filter-status'),n=document.getElementById('filter-count');
function apply(){var text=q.value.toLowerCase(),shown=0;for(var i=0;i<body.rows.length;i++){var r=body.rows[i];var ok=(!text||r.textContent.toLowerCase().indexOf(text)>=0)&&(!s.value||r.dataset.severity===s.value)&&(!k.value||r.dataset.type===k.value)&&(!st.value||r.dataset.status===st.value);r.hidden=!ok;if(ok)shown++;}n.textContent=shown+' of '+body.rows.length+' findings shown';}
[q,s,k,st].forEach(function(e){e.addEventListener('input',apply);e.addEventListener('change',apply);});
var heads=t.tHead.rows[0].cells;
Array.prototype.forEach.call(heads,function(th,col){var b=th.querySelector('button');if(!b)return;b.addEventListener('click',function(){
var dir=th.getAttribute('aria-sort')==='ascending'?-1:1;Array.prototype.forEach.call(heads,function(h){h.removeAttribute('aria-sort');});th.setAttribute('aria-sort',dir===1?'ascending':'descending');
var rows=Array.prototype.slice.call(body.rows);rows.sort(function(a,b){var x=a.cells[col].dataset.sort||a.cells[col].textContent,y=b.cells[col].dataset.sort||b.cells[col].textContent;var nx=parseFloat(x),ny=parseFloat(y);var c=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);return c*dir;});
rows.forEach(function(r){body.appendChild(r);});});});
apply();})();
`;

function chart(model: FindingsModel): string {
  const counts = FINDING_TYPES.map((t) => ({ t, by: SEVERITIES.map((s) => model.findings.filter((f) => f.findingType === t && f.severity === s).length) }));
  const max = Math.max(1, ...counts.map((c) => c.by.reduce((a, b) => a + b, 0)));
  const label = counts.map((c) => `${FINDING_TYPE_LABEL[c.t]}: ${SEVERITIES.map((s, i) => `${c.by[i]} ${SEVERITY_LABEL[s].toLowerCase()}`).join(', ')}`).join('; ');
  const bars = counts.map((c, row) => {
    let x = 190;
    const rects = c.by.map((n, i) => {
      const w = (n / max) * 480;
      const r = w > 0 ? `<rect x="${x.toFixed(1)}" y="${row * 28 + 4}" width="${Math.max(w, 1.5).toFixed(1)}" height="18" fill="${SEVERITY_COLOR[SEVERITIES[i]!]}"/>` : '';
      x += w;
      return r;
    }).join('');
    return `<text x="0" y="${row * 28 + 18}" font-size="13">${esc(FINDING_TYPE_LABEL[c.t])}</text>${rects}<text x="${(x + 6).toFixed(1)}" y="${row * 28 + 18}" font-size="13">${c.by.reduce((a, b) => a + b, 0)}</text>`;
  }).join('');
  return `<figure><svg role="img" aria-label="${esc(`Findings by type and severity. ${label}`)}" viewBox="0 0 720 ${counts.length * 28 + 4}" width="100%" style="max-width:720px">${bars}</svg>
<figcaption>${SEVERITIES.map((s) => `<span class="sev" style="background:${SEVERITY_COLOR[s]}">${SEVERITY_LABEL[s]}</span>`).join(' ')}</figcaption></figure>`;
}

function cover(model: FindingsModel, digest: FindingsDigest): string {
  const facts: Array<[string, string]> = [
    ...(model.product ? [['Product', model.product.name] as [string, string]] : []),
    ['Image', imageTitle(model)],
    ...(model.image.uploadTime ? [['Uploaded', humanDate(model.image.uploadTime)] as [string, string]] : []),
    ['Scanned', model.scan ? humanDate(model.scan.createTime) : `${humanDate(model.generatedAt)} (offline scan)`],
    ['File', `${model.image.fileName} (${formatName(model.image.type)})`], ['Size', byteSizeWithCount(model.image.size)], ['SHA-256', model.image.sha256],
    ['Engine', `Firmscope ${model.engineVersion}`], ['Report generated', humanDate(model.generatedAt)],
  ];
  const incomplete = incompleteText(model);
  return `<header><h1>Firmware Security Assessment</h1><p class="muted">${esc(model.product ? `${model.product.name} — ${imageTitle(model)}` : imageTitle(model))}</p>
<dl class="facts">${facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}</dl>
<div class="rating"><div class="level" style="background:${RATING_COLOR[digest.rating.level]}">Overall risk<strong>${esc(digest.rating.level)}</strong></div><p><strong>${esc(plural(digest.open, 'open finding'))} of ${model.summary.total}.</strong> ${esc(digest.rating.reason)}</p></div>
${incomplete ? `<div class="banner" role="alert"><strong>Analysis incomplete.</strong> ${esc(incomplete)}</div>` : ''}</header>`;
}

function summary(model: FindingsModel, digest: FindingsDigest): string {
  const t = digest.triage;
  const c = digest.changes;
  const actions = digest.actions.slice(0, ACTIONS_SHOWN);
  const fixFirst = `<p>${esc(fixFirstLead(digest))}</p>${actions.length ? `<ol class="actions">${actions.map((a) => `<li><strong>${esc(a.action)}</strong> <span class="muted">${esc(a.why)}. Removes ${esc(removesText(a.findings).replace(/[^.\u2026]$/, '$&.'))}</span></li>`).join('')}</ol>` : ''}${digest.actions.length > actions.length ? `<p class="muted">…and ${esc(plural(digest.actions.length - actions.length, 'more action'))} for the other critical and high findings, in the findings section.</p>` : ''}`;
  return `<p><strong style="color:${RATING_COLOR[digest.rating.level]}">Overall risk: ${esc(digest.rating.level)}.</strong> ${esc(digest.rating.reason)}</p>
<div class="tiles">${SEVERITIES.map((s) => `<div class="tile" style="background:${SEVERITY_COLOR[s]}"><strong>${model.summary.bySeverity[s] ?? 0}</strong>${SEVERITY_LABEL[s]}</div>`).join('')}</div>
${chart(model)}
<p>Triage: ${ISSUE_STATUSES.map((s) => `${esc(STATUS_LABEL[s])} ${t[s]}`).join(' · ')}</p>
<p>${c ? esc(`Since ${c.baseline.name}${c.baseline.version ? ` ${c.baseline.version}` : ''} (uploaded ${humanDate(c.baseline.createTime, true)}): ${c.added.length} new, ${c.resolved.length} resolved, ${c.unchanged} unchanged.`) : 'No earlier image of this product to compare with.'}</p>
<h3>What to fix first</h3>${fixFirst}
<h3>Top 10 risks</h3>${table(['Severity', 'Risk in plain words', 'Fixed in', 'Upgrade that removes the most findings'], digest.topRisks.map((risk) => [
    sev(risk.finding.severity), esc(riskText(risk)), esc(risk.finding.knownFixedVersion ?? 'no fix known'), esc(upgradeText(risk)),
  ]), 'No open findings.')}`;
}

function coverage(model: FindingsModel, x: FindingsExtras): string {
  const c = x.coverage;
  const incomplete = incompleteText(model);
  return `${incomplete ? `<div class="banner"><strong>Analysis incomplete.</strong> ${esc(incomplete)}</div>` : c.complete ? '<p>Analysis complete: every part of the image that Firmscope recognised was read.</p>' : ''}
<dl class="facts"><dt>Files extracted</dt><dd>${c.files}</dd><dt>Share recognised</dt><dd>${c.recognised === undefined ? 'not recorded' : `${(c.recognised * 100).toFixed(1)}% of the image's bytes`}</dd>
<dt>Components</dt><dd>${c.components}</dd><dt>Binaries</dt><dd>${c.binaries}</dd><dt>Problems</dt><dd>${(['error', 'warning', 'info'] as const).map((l) => `${esc(PROBLEM_LEVEL_LABEL[l])}: ${c.problems[l]}`).join(' · ')}</dd></dl>
<h3>Formats unpacked</h3>${table(['Format', 'Parts unpacked'], c.formats.map(([id, n]) => [esc(id), String(n)]), 'No container format was recognised.')}
<h3>What could not be fully analysed</h3>${table(['Level', 'Where', 'What happened'], c.problemRows.map((p) => [p.level === 'error' ? 'Error' : 'Warning', esc(p.where), esc(p.message)]), 'Nothing: no errors or warnings were recorded.')}`;
}

function detail(f: ReportFinding, history: StatusChangeRecord[]): string {
  const facts = detailFacts(f, history).map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v).replaceAll('\n', '<br>')}</dd>`);
  const refs = (f.references ?? []).slice(0, 5).map((r) => `<a href="${esc(r.url)}">${esc(r.url)}</a>`).join('<br>');
  // the references before the status, as in the PDF
  if (refs) facts.splice(facts.findIndex((d) => d.startsWith('<dt>Status</dt>')), 0, `<dt>References</dt><dd>${refs}</dd>`);
  const text = detailText(f);
  return `<details id="finding-${esc(f.id)}" style="border-left-color:${SEVERITY_COLOR[f.severity]}"><summary>${esc(SEVERITY_LABEL[f.severity])} · ${esc(findingLabel(f))}</summary>
${text ? `<p>${esc(text)}</p>` : ''}
<dl class="facts">${facts.join('')}</dl></details>`;
}

function findings(model: FindingsModel, history: Record<string, StatusChangeRecord[]>): string {
  const option = (value: string, label: string) => `<option value="${esc(value)}">${esc(label)}</option>`;
  const rows = model.findings.map((f) => {
    const label = findingLabel(f);
    const text = isDetailed(f) ? `<a href="#finding-${esc(f.id)}">${esc(label)}</a>` : `${esc(label)}${label === f.pname && (f.description || f.title) ? `<br><span class="muted">${esc(firstSentence(f.description ?? f.title!, 140))}</span>` : ''}`;
    return `<tr data-severity="${f.severity}" data-type="${f.findingType}" data-status="${f.issueStatus}"><td data-sort="${SEVERITIES.indexOf(f.severity)}">${sev(f.severity)}</td><td>${text}</td><td>${esc(FINDING_TYPE_LABEL[f.findingType])}</td>
<td>${esc(componentLabel(f.component) || '-')}</td><td>${esc(f.knownFixedVersion ?? '-')}</td><td data-sort="${f.cvssLatestBaseScore ?? -1}">${f.cvssLatestBaseScore?.toFixed(1) ?? '-'}</td>
<td data-sort="${f.epss?.probability ?? -1}">${f.epss ? `${(f.epss.probability * 100).toFixed(1)}%` : '-'}</td><td>${f.isKev ? (f.kev ? esc(`Since ${humanDate(f.kev.dateAdded, true)}`) : 'Yes') : 'No'}</td><td>${esc(STATUS_LABEL[f.issueStatus])}</td></tr>`;
  }).join('');
  // On paper the sort buttons give way to plain labels (.print-label): Chromium repeats no table header that holds a
  // button on each printed page.
  const headers = ['Severity', 'Finding', 'Type', 'Component', 'Fixed in', 'CVSS', 'EPSS', 'KEV', 'Status'];
  const detailed = model.findings.filter(isDetailed);
  return `<p class="muted">One row per finding, most severe first; click a column header to sort. Each critical and high finding has a detail block below.</p>
<div class="filters" role="search"><label>Search<input id="filter-text" type="search"></label>
<label>Severity<select id="filter-severity">${option('', 'All')}${SEVERITIES.map((s) => option(s, SEVERITY_LABEL[s])).join('')}</select></label>
<label>Type<select id="filter-type">${option('', 'All')}${FINDING_TYPES.map((t) => option(t, FINDING_TYPE_LABEL[t])).join('')}</select></label>
<label>Status<select id="filter-status">${option('', 'All')}${ISSUE_STATUSES.map((s) => option(s, STATUS_LABEL[s])).join('')}</select></label>
<output id="filter-count" aria-live="polite"></output></div>
${model.findings.length ? `<table id="findings-table"><caption>Findings</caption><thead><tr>${headers.map((h) => `<th scope="col"><button type="button">${h}</button><span class="print-label" aria-hidden="true">${h}</span></th>`).join('')}</tr></thead><tbody>${rows}</tbody></table>` : '<p>The scan reported no findings.</p>'}
${detailed.length ? `<h3>Critical and high findings in detail</h3>${detailed.map((f) => detail(f, history[f.id] ?? [])).join('\n')}` : ''}`;
}

function components(x: FindingsExtras): string {
  return table(['Component', 'Version', 'Kind', 'Licence', ...SEVERITIES.slice(0, 4).map((s) => SEVERITY_LABEL[s])], x.components.map((c) => [
    esc(c.name), esc(c.version ?? 'unknown'), esc(c.type), esc(c.licenses.join(', ') || 'not known'), ...SEVERITIES.slice(0, 4).map((s) => String(c.findings[s] ?? '')),
  ]), 'No components were identified.');
}

function crypto(x: FindingsExtras): string {
  const k = x.crypto;
  return `<p>Quantum readiness score: ${k.score} / 100 (${k.algorithms} algorithms). The score is the share of the detected algorithms that stay safe against a quantum computer; the separate post-quantum cryptography (PQC) report assesses each algorithm and what to migrate to.</p>
<h3>Private keys</h3>${table(['Key', 'Protection', 'Files'], k.privateKeys.map((p) => [esc(p.name), esc(p.protection), esc(p.files)]), 'No private keys were found in the image.')}
<h3>Certificates</h3>${table(['Certificate', 'Key', 'Expires', 'State', 'File'], k.certificates.map((c) => [esc(c.name), esc(c.key), esc(c.expires), c.expired ? '<strong>Expired</strong>' : esc(c.state), esc(c.file)]), 'No certificates were found in the image.')}
<h3>Weak algorithms</h3>${table(['Algorithm', 'Why it is weak', 'Used by'], k.weak.map((w) => [esc(w.name), esc(w.why), esc(w.usedBy)]), 'No broken or deprecated algorithms were detected.')}`;
}

function binaries(model: FindingsModel, x: FindingsExtras): string {
  const b = x.binaries;
  const malicious = model.findings.filter((f) => f.findingType === 'maliciousCode');
  return `${b ? `<p>${esc(plural(b.count, 'executable or library', 'executables and libraries'))} were checked. A protection missing from a network-facing program makes a memory-safety bug in it easier to exploit.</p>
${table(['Protection', 'What it does', 'Binaries with it'], b.protections.map((p) => [esc(p.label), esc(p.purpose), `${p.have} of ${p.of}`]), 'No programs to check.')}
<h3>Network-facing programs missing protections</h3>${table(['Program', 'Missing', 'Unsafe calls (strcpy, system, …)'], b.exposed.map((e) => [esc(e.path), esc(e.missing.join(', ')), String(e.unsafeUses)]), 'Every network-facing program has the checked protections.')}`
    : '<p class="muted">This scan did not record binary hardening.</p>'}
<h3>Malicious code</h3>${malicious.length ? table(['Severity', 'Match', 'Files', 'Status'], malicious.map((f) => [sev(f.severity), esc(findingLabel(f)), esc(f.occurrences.map((o) => devicePath(o.path)).join(', ')), esc(STATUS_LABEL[f.issueStatus])]), '')
    : `<p>${esc(noMaliciousCode(x))}</p>`}`;
}

export const findingsHtmlReport: ReportGenerator = {
  id: 'findings-html',
  aliases: [],
  mediaType: 'text/html; charset=utf-8',
  async generate(input) {
    const { model, digest, extras: x } = findingsReportParts(input);
    const sections = chosenSections(input);
    const body: Record<FindingsSection, () => string> = {
      summary: () => summary(model, digest), coverage: () => coverage(model, x), findings: () => findings(model, input.history ?? {}),
      components: () => components(x), crypto: () => crypto(x), binaries: () => binaries(model, x),
    };
    const title = `Firmware security assessment: ${model.product ? `${model.product.name}, ` : ''}${imageTitle(model)}`;
    return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${esc(title)}</title><style>${STYLE}</style></head>
<body>${cover(model, digest)}
<nav aria-label="Contents"><h2>Contents</h2><ol>${sections.map((s) => `<li><a href="#${s}">${esc(SECTION_TITLES[s])}</a></li>`).join('')}</ol></nav>
<main>${sections.map((s) => `<section id="${s}" aria-labelledby="${s}-title"><h2 id="${s}-title">${esc(SECTION_TITLES[s])}</h2>${body[s]()}</section>`).join('\n')}</main>
<script>${SCRIPT}</script></body></html>
`;
  },
};
