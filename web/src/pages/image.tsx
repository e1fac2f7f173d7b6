// Image: count tiles, scan history with problems (and a plain notice when the analysis is incomplete), findings,
// components with evidence, cryptographic assets, binaries and report downloads, one tab at a time.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, expectData, fetchBlob, saveBlob, type Schemas } from '../api.js';
import { DebugFileUpload } from '../debug-files.js';
import { ScanTimeline } from '../scan-timeline.js';
import { FileTree } from '../file-tree.js';
import { FindingsTable } from '../findings-table.js';
import { useImage, useProduct, useSeverityCounts, type Image } from '../queries.js';
import { Link } from '../router.js';
import { useCan } from '../session.js';
import { Empty, ErrorNotice, formatDate, Loading, Page, SEVERITIES, StateBadge, Tile } from '../ui.js';
import { byteSize } from '../../../src/format/byte-size.js';

const TABS = ['Findings', 'Components', 'Files', 'Crypto', 'Binaries', 'Scans', 'Reports'] as const;
type Tab = (typeof TABS)[number];

export function ImagePage({ productId, imageId }: { productId: string; imageId: string }) {
  const product = useProduct(productId);
  const image = useImage(productId, imageId);
  const [tab, setTab] = useState<Tab>('Findings');
  const scanState = image.data?.latestScan?.latestScanState;
  const done = scanState?.type === 'completed';
  const counts = useSeverityCounts(imageId, done);
  if (image.error) return <ErrorNotice error={image.error} action="Check the address, or go back to the product." />;
  if (!image.data) return <Loading what="the image" />;
  const img = image.data;
  const scanId = img.latestScan?.id;
  return (
    <Page
      title={`${img.name}${img.version ? ` ${img.version}` : ''}`}
      crumbs={<><Link href="/">Dashboard</Link> / <Link href={`/products/${productId}`}>{product.data?.name ?? 'Product'}</Link> / {img.name}</>}
      actions={<Link className="button" href={`/compare?product=${productId}&target=${imageId}`}>Compare…</Link>}
    >
      <ScanStatus image={img} />
      <div className="tiles">
        {SEVERITIES.map((s) => <Tile key={s} label={s} tone={s} value={counts.data ? counts.data[s] : '—'} />)}
        <Tile label="KEV" value={img.counts?.kev ?? '—'} />
        <Tile label="Components" value={img.counts?.dependenciesCount ?? '—'} />
        <Tile label="Crypto assets" value={img.counts?.cryptographicAssetsCount ?? '—'} />
        <Tile label="Expired certificates" value={img.counts?.expiredCertificatesCount ?? '—'} />
      </div>
      <div role="tablist" aria-label="Image details" className="tabs">
        {TABS.map((t) => (
          <button key={t} type="button" role="tab" id={`tab-${t}`} aria-selected={tab === t} aria-controls="tabpanel" tabIndex={tab === t ? 0 : -1}
            onClick={() => setTab(t)}
            onKeyDown={(e) => {
              const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
              if (!step) return;
              const next = TABS[(TABS.indexOf(t) + step + TABS.length) % TABS.length]!;
              setTab(next);
              document.getElementById(`tab-${next}`)?.focus();
            }}>{t}</button>
        ))}
      </div>
      <div role="tabpanel" id="tabpanel" aria-labelledby={`tab-${tab}`} className="tabpanel">
        {tab === 'Scans' ? <Scans productId={productId} image={img} />
          : !done || !scanId ? <Empty title="The results appear when the scan completes.">{scanState?.type === 'failed' ? <p>This scan failed; see the Scans tab for its reason, then upload again or start a new scan.</p> : <p>The page refreshes by itself.</p>}</Empty>
          : tab === 'Findings' ? <FindingsTable productId={productId} scope={[{ field: 'imageId', value: imageId }]} title="Findings" csvName={`${img.name}-findings.csv`} />
          : tab === 'Components' ? <Components productId={productId} imageId={imageId} scanId={scanId} />
          : tab === 'Files' ? <FileTree productId={productId} imageId={imageId} scanId={scanId} />
          : tab === 'Crypto' ? <Crypto imageId={imageId} />
          : tab === 'Binaries' ? <Binaries imageId={imageId} />
          : <Reports productId={productId} image={img} />}
      </div>
    </Page>
  );
}

function ScanStatus({ image }: { image: Image }) {
  const state = image.latestScan?.latestScanState;
  if (!state) return <div className="notice">This image has no scan.</div>;
  if (state.type === 'failed') return <div className="notice error" role="alert"><strong>The scan failed.</strong> {state.error?.message ?? 'No reason was recorded.'} Upload the image again, or check that it is a firmware image.</div>;
  if (state.type !== 'completed') {
    const percent = Math.round(state.progress?.percent ?? 0);
    return (
      <div className="notice" role="status" aria-live="polite">
        Scan <StateBadge state={state.type} /> {state.progress?.phase ?? 'waiting for a worker'}{' '}
        <progress max={100} value={percent} aria-label="Scan progress">{percent}%</progress> {percent}%
      </div>
    );
  }
  if (image.analysis && !image.analysis.complete) {
    return (
      <div className="notice warn" role="note">
        <strong>The analysis is incomplete:</strong> parts of this image could not be unpacked or analysed, so findings may be missing.
        <ul>{image.analysis.reasons.map((r) => <li key={r}>{r}</li>)}</ul>
      </div>
    );
  }
  return <div className="notice ok" role="status">Scan completed {formatDate(state.updateTime)}.</div>;
}

function Scans({ productId, image }: { productId: string; image: Image }) {
  const canUpdate = useCan('images.update');
  const scans = useQuery({ queryKey: ['scans', image.id], queryFn: async () => expectData(await api.GET('/api/v4/products/{productId}/images/{imageId}/scans', { params: { path: { productId, imageId: image.id }, query: { status: true } as never } })).scans });
  if (scans.error) return <ErrorNotice error={scans.error} />;
  if (!scans.data) return <Loading what="scans" />;
  return (
    <section aria-labelledby="scans-title">
      <h2 id="scans-title">Scan history</h2>
      <ol className="scan-list">
        {scans.data.map((scan) => <ScanEntry key={scan.id} productId={productId} imageId={image.id} scan={scan} />)}
      </ol>
      {canUpdate && <DebugFileUpload productId={productId} imageId={image.id} />}
    </section>
  );
}

function ScanEntry({ productId, imageId, scan }: { productId: string; imageId: string; scan: Schemas['Scan'] }) {
  const params = { path: { productId, imageId, scanId: scan.id } };
  const problems = useQuery({ queryKey: ['scan-problems', scan.id], queryFn: async () => expectData(await api.GET('/api/v4/products/{productId}/images/{imageId}/scans/{scanId}/problems', { params: { ...params, query: { level: 'error,warning', size: 50 } } })) });
  const s = scan.summary;
  return (
    <li>
      <p><StateBadge state={scan.latestScanState.type} /> started {formatDate(scan.createTime)}{s ? ` · ${s.filesExtracted} files · ${(s.durationMs / 1000).toFixed(1)} s` : ''}</p>
      {scan.latestScanState.error && <p className="error-text">Reason: {scan.latestScanState.error.message}</p>}
      <ScanTimeline productId={productId} imageId={imageId} scanId={scan.id} phases={s?.phases} progress={scan.latestScanState.progress} />
      {s && !s.complete && <p className="warn-text">Incomplete analysis: {s.incompleteReasons.join('; ')}</p>}
      {problems.data && problems.data.total > 0 && (
        <details>
          <summary>{problems.data.total} problem{problems.data.total === 1 ? '' : 's'} (errors and warnings)</summary>
          <ul>{problems.data.rows.map((p, i) => <li key={i}><span className={`badge lvl-${p.level}`}>{p.level}</span> {p.path && <code>{p.path}</code>} {p.message}</li>)}</ul>
        </details>
      )}
    </li>
  );
}

function Components({ productId, imageId, scanId }: { productId: string; imageId: string; scanId: string }) {
  const [filter, setFilter] = useState('');
  const components = useQuery({ queryKey: ['components', scanId], queryFn: async () => expectData(await api.GET('/api/v4/products/{productId}/images/{imageId}/scans/{scanId}/components', { params: { path: { productId, imageId, scanId } } })).components });
  if (components.error) return <ErrorNotice error={components.error} />;
  if (!components.data) return <Loading what="components" />;
  const shown = components.data.filter((c) => `${c.name} ${c.version ?? ''}`.toLowerCase().includes(filter.toLowerCase()));
  return (
    <section aria-labelledby="components-title">
      <h2 id="components-title">Components ({components.data.length})</h2>
      <label>Filter <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} /></label>
      {shown.length === 0 ? <p className="muted">No component{filter ? ' matches' : ' was identified'}.</p> : (
        <div className="table-wrap" tabIndex={0}><table>
          <thead><tr><th scope="col">Component</th><th scope="col">Version</th><th scope="col">Type</th><th scope="col">Identifiers</th><th scope="col">Evidence</th></tr></thead>
          <tbody>{shown.map((c) => (
            <tr key={c.id}>
              <th scope="row">{c.name}</th><td>{c.version ?? '—'}</td><td>{c.type}</td>
              <td className="wrap">{c.purl && <code>{c.purl}</code>}{c.cpe && <><br /><code>{c.cpe}</code></>}</td>
              <td className="wrap"><ul className="plain">{c.evidence.slice(0, 5).map((e, i) => <li key={i}><code>{e.path}</code> ({e.method}{e.match ? `: ${e.match}` : ''})</li>)}</ul>{c.evidence.length > 5 && <span className="muted">and {c.evidence.length - 5} more</span>}</td>
            </tr>
          ))}</tbody>
        </table></div>
      )}
    </section>
  );
}

function Crypto({ imageId }: { imageId: string }) {
  const assets = useQuery({ queryKey: ['crypto', imageId], queryFn: async () => expectData(await api.POST('/api/v4/grids/cryptographicAssets:gridList', { body: { filters: [{ field: 'imageId', value: imageId }], page: { num: 0, size: 100 } } })) });
  if (assets.error) return <ErrorNotice error={assets.error} />;
  if (!assets.data) return <Loading what="cryptographic assets" />;
  return (
    <section aria-labelledby="crypto-title">
      <h2 id="crypto-title">Cryptographic assets and certificates ({assets.data.total})</h2>
      {assets.data.total === 0 ? <p className="muted">No key, certificate or algorithm was found.</p> : (
        <div className="table-wrap" tabIndex={0}><table>
          <thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Details</th><th scope="col">Found in</th></tr></thead>
          <tbody>{assets.data.rows.map((a) => {
            const d = a.details as Record<string, unknown>;
            const expiry = typeof d.notValidAfter === 'string' ? d.notValidAfter : typeof d.validTo === 'string' ? d.validTo : undefined;
            const expired = expiry ? new Date(expiry) < new Date() : false;
            return (
              <tr key={a.id}>
                <th scope="row">{a.name}</th><td>{a.assetType}</td>
                <td className="wrap">{expiry && <span className={expired ? 'badge sev-high' : 'badge'}>{expired ? 'expired' : 'expires'} {expiry.slice(0, 10)}</span>} {Object.entries(d).filter(([k, v]) => k !== 'notValidAfter' && k !== 'validTo' && (typeof v === 'string' || typeof v === 'number')).slice(0, 4).map(([k, v]) => `${k}: ${String(v)}`).join(' · ')}</td>
                <td className="wrap">{a.paths.slice(0, 3).map((p) => <code key={p}>{p} </code>)}</td>
              </tr>
            );
          })}</tbody>
        </table></div>
      )}
    </section>
  );
}

function Binaries({ imageId }: { imageId: string }) {
  const binaries = useQuery({ queryKey: ['binaries', imageId], queryFn: async () => expectData(await api.POST('/api/v4/grids/binaries:gridList', { body: { filters: [{ field: 'imageId', value: imageId }], page: { num: 0, size: 100 } } })) });
  if (binaries.error) return <ErrorNotice error={binaries.error} />;
  if (!binaries.data) return <Loading what="binaries" />;
  const flag = (v: boolean | undefined) => (v === undefined ? '—' : v ? 'yes' : 'no');
  return (
    <section aria-labelledby="binaries-title">
      <h2 id="binaries-title">Binaries and hardening ({binaries.data.total})</h2>
      {binaries.data.total === 0 ? <p className="muted">No ELF or PE binary was found.</p> : (
        <div className="table-wrap" tabIndex={0}><table>
          <thead><tr><th scope="col">Path</th><th scope="col">Format</th><th scope="col">NX</th><th scope="col">PIE / ASLR</th><th scope="col">RELRO</th><th scope="col">Canary</th><th scope="col">Unsafe uses</th></tr></thead>
          <tbody>{binaries.data.rows.map((b) => (
            <tr key={b.id}><th scope="row"><code>{b.path}</code></th><td>{b.format} {b.arch}/{b.bits}</td><td>{flag(b.nx)}</td><td>{flag(b.pie ?? b.aslr)}</td><td>{b.relro ?? '—'}</td><td>{flag(b.canary)}</td><td>{b.unsafeUses}{b.unsafeFunctions.length ? ` (${b.unsafeFunctions.slice(0, 4).join(', ')})` : ''}</td></tr>
          ))}</tbody>
        </table></div>
      )}
    </section>
  );
}

const REPORTS: Array<{ label: string; path: string; file: string; post?: boolean }> = [
  { label: 'Findings (PDF)', path: 'findingsReport:pdf', file: 'findings.pdf' },
  { label: 'Findings (JSON)', path: 'findingsReport:json', file: 'findings.json', post: true },
  { label: 'Findings (CSV)', path: 'findingsReport:download?contentType=csv', file: 'findings.csv', post: true },
  { label: 'SBOM (CycloneDX)', path: 'sbomReport:cycloneDX', file: 'sbom.cdx.json' },
  { label: 'SBOM (SPDX)', path: 'sbomReport:SPDX', file: 'sbom.spdx.json' },
  { label: 'CBOM (CycloneDX)', path: 'cbomReport:cycloneDX', file: 'cbom.cdx.json' },
  { label: 'PQC compliance (PDF)', path: 'cryptographicMaterialsReport?mode=pqc-compliance&contentType=pdf', file: 'pqc.pdf' },
  { label: 'VEX (OpenVEX)', path: 'vexReport:openVEX', file: 'vex.openvex.json' },
  { label: 'VEX (CycloneDX)', path: 'vexReport:cycloneDX', file: 'vex.cdx.json' },
];

function Reports({ productId, image }: { productId: string; image: Image }) {
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<unknown>();
  const download = async (report: (typeof REPORTS)[number]) => {
    setBusy(report.label);
    setError(undefined);
    try {
      const init = report.post ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' } : {};
      saveBlob(await fetchBlob(`/api/v4/products/${productId}/images/${image.id}/${report.path}`, init), `${image.name}-${report.file}`);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <section aria-labelledby="reports-title">
      <h2 id="reports-title">Reports</h2>
      {!!error && <ErrorNotice error={error} />}
      <ul className="report-list">
        {REPORTS.map((r) => <li key={r.label}><button type="button" onClick={() => void download(r)} disabled={!!busy}>{busy === r.label ? 'Preparing…' : `Download ${r.label}`}</button></li>)}
      </ul>
      <p className="muted">Image: {image.fileName} · {byteSize(image.size)} · SHA-256 <code>{image.hashes.sha256}</code></p>
    </section>
  );
}
