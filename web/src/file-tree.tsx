// The image's extracted file tree, one directory at a time, with the details of a chosen file: type, size,
// hashes, where it was extracted from, the components and findings that cite it, and a hex view of its first bytes.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, expectData, type Schemas } from './api.js';
import { HexView } from './hex-view.js';
import { findingGrid } from './queries.js';
import { Link } from './router.js';
import { ErrorNotice, Loading, Severity } from './ui.js';
import { byteSize } from '../../src/format/byte-size.js';

export function FileTree({ productId, imageId, scanId }: { productId: string; imageId: string; scanId: string }) {
  const [dir, setDir] = useState('');
  const [selected, setSelected] = useState<string>();
  const path = { productId, imageId, scanId };
  const listing = useQuery({
    queryKey: ['file-tree', scanId, dir],
    queryFn: async () => expectData(await api.GET('/api/v4/products/{productId}/images/{imageId}/scans/{scanId}/fileTree', { params: { path, query: { dir, size: 500 } } })),
  });
  const parts = dir ? dir.split('/') : [];
  const chosen = listing.data?.entries.find((e) => e.path === selected);
  return (
    <section aria-labelledby="files-title" className="file-tree">
      <h2 id="files-title">Extracted files</h2>
      <nav aria-label="Folder" className="crumbs">
        <button type="button" className="link" onClick={() => { setDir(''); setSelected(undefined); }}>top</button>
        {parts.map((part, i) => (
          <span key={i}> / <button type="button" className="link" onClick={() => { setDir(parts.slice(0, i + 1).join('/')); setSelected(undefined); }}>{part}</button></span>
        ))}
      </nav>
      {listing.error && <ErrorNotice error={listing.error} />}
      {listing.isLoading && <Loading what="files" />}
      <div className="tree-columns">
        {listing.data && (
          <ul className="tree-list" aria-label={`Contents of ${dir || 'the image'}`}>
            {listing.data.entries.map((entry) => {
              const name = entry.path.slice(entry.path.lastIndexOf('/') + 1);
              const opens = entry.descendants > 0;
              return (
                <li key={entry.path} data-kind={entry.node?.kind ?? 'folder'}>
                  <button type="button" className={`link${selected === entry.path ? ' current' : ''}`} aria-current={selected === entry.path ? 'true' : undefined}
                    onClick={() => (opens && !entry.node ? setDir(entry.path) : setSelected(entry.path))}>
                    {opens ? '▸ ' : ''}{name}
                  </button>
                  {opens && entry.node && <button type="button" className="link small" onClick={() => { setDir(entry.path); setSelected(undefined); }} aria-label={`Open ${name}`}>open ({entry.descendants})</button>}
                  <span className="muted small"> {entry.node ? `${entry.node.kind === 'file' ? entry.node.type : entry.node.kind}${entry.node.kind === 'file' ? ` · ${byteSize(entry.node.size)}` : ''}` : `${entry.descendants} inside`}</span>
                </li>
              );
            })}
            {listing.data.total === 0 && <li className="muted">Nothing was extracted here.</li>}
            {listing.data.total > listing.data.entries.length && <li className="muted">Showing {listing.data.entries.length} of {listing.data.total}.</li>}
          </ul>
        )}
        {chosen?.node && <FileDetails productId={productId} imageId={imageId} scanId={scanId} node={chosen.node} />}
      </div>
    </section>
  );
}

type FileNode = NonNullable<Schemas['FileTreeEntry']['node']>;

function FileDetails({ productId, imageId, scanId, node }: { productId: string; imageId: string; scanId: string; node: FileNode }) {
  const components = useQuery({
    queryKey: ['components', scanId],
    queryFn: async () => expectData(await api.GET('/api/v4/products/{productId}/images/{imageId}/scans/{scanId}/components', { params: { path: { productId, imageId, scanId } } })).components,
  });
  // The grid's `identifiers` filter matches a quoted string anywhere in the finding document: here, its evidence path.
  const findings = useQuery({
    queryKey: ['file-findings', imageId, node.path],
    queryFn: () => findingGrid({ filters: [{ field: 'imageId', value: imageId }, { field: 'identifiers', comparator: 'contains', value: node.path }], page: { num: 0, size: 50 } }),
  });
  const citing = components.data?.filter((c) => c.paths.includes(node.path) || c.evidence.some((e) => e.path === node.path)) ?? [];
  return (
    <div className="file-details" aria-labelledby="file-title">
      <h3 id="file-title"><code>{node.fsPath || node.path}</code></h3>
      <dl className="details">
        <div><dt>Kind</dt><dd>{node.kind}</dd></div>
        <div><dt>Type</dt><dd>{node.type}</dd></div>
        <div><dt>Size</dt><dd>{byteSize(node.size)} ({node.size} bytes)</dd></div>
        {node.sha256 && <div><dt>SHA-256</dt><dd><code>{node.sha256}</code></dd></div>}
        {node.format && <div><dt>Unpacked by</dt><dd>{node.format}</dd></div>}
        {node.parent && <div><dt>Extracted from</dt><dd><code>{node.parent}</code>{node.offset !== undefined && ` at offset ${node.offset}`}</dd></div>}
        {node.mode !== undefined && <div><dt>Mode</dt><dd><code>{node.mode.toString(8)}</code></dd></div>}
        {node.linkTarget && <div><dt>Link target</dt><dd><code>{node.linkTarget}</code></dd></div>}
        <div><dt>Tree path</dt><dd><code>{node.path}</code></dd></div>
      </dl>
      {node.kind === 'file' && <><h4>First bytes</h4><HexView productId={productId} imageId={imageId} scanId={scanId} path={node.path} /></>}
      <h4>Components citing it</h4>
      {components.isLoading ? <Loading what="components" /> : citing.length === 0 ? <p className="muted">None.</p> : <ul>{citing.map((c) => <li key={c.id}>{c.name} {c.version}</li>)}</ul>}
      <h4>Findings citing it</h4>
      {findings.isLoading ? <Loading what="findings" /> : !findings.data?.total ? <p className="muted">None.</p> : (
        <ul>{findings.data.rows.map((f) => <li key={f.id}><Severity value={f.severity} /> <Link href={`/products/${productId}/findings/${f.id}`}>{f.name}</Link></li>)}</ul>
      )}
    </div>
  );
}
