// Dashboard: products with their latest image's risk, scans in progress, recent escalations, a trend chart.
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { Suspense, useState, type FormEvent } from 'react';
import { lazyComponent } from '../lazy-page.js';
import { api, expectData } from '../api.js';
import { bareId, fetchImages, isRunning, severityCounts, useProducts, type Image, type Product } from '../queries.js';
import { Link, navigate } from '../router.js';
import { useCan } from '../session.js';
import { Empty, ErrorNotice, formatDate, FormError, Kev, Loading, Page, SEVERITIES, Severity, StateBadge } from '../ui.js';

// ECharts is the largest library of the UI and only this page draws a chart: its chunk starts loading with this
// page, alongside the page's data, and never with any other page.
const TrendChart = lazyComponent(() => import('../chart.js').then((m) => m.TrendChart));
void TrendChart.preload();

export function DashboardPage() {
  const products = useProducts();
  const canCreate = useCan('products.create');
  const list = products.data ?? [];
  const images = useQueries({
    queries: list.slice(0, 50).map((p) => ({
      queryKey: ['images', p.id], queryFn: () => fetchImages(p.id),
      refetchInterval: (query: { state: { data?: Image[] } }) => (query.state.data?.some(isRunning) ? 2000 : false),
    })),
  });
  const imagesOf = new Map(list.slice(0, 50).map((p, i) => [p.id, images[i]?.data ?? []]));
  const running = list.flatMap((p) => (imagesOf.get(p.id) ?? []).filter(isRunning).map((image) => ({ product: p, image })));

  return (
    <Page title="Dashboard" actions={canCreate && <NewProduct />}>
      {products.isLoading && <Loading what="products" />}
      {products.error && <ErrorNotice error={products.error} />}
      {products.data && list.length === 0 && (
        <Empty title="No products yet.">
          <p>{canCreate ? 'Create a product with the form above, then upload a firmware image to it.' : 'Ask an analyst or administrator to create one; you can view what they upload.'}</p>
        </Empty>
      )}
      {list.length > 0 && (
        <section aria-labelledby="products-title">
          <h2 id="products-title">Products</h2>
          <div className="table-wrap" tabIndex={0}>
            <table>
              <caption className="sr-only">Products with the findings of their latest image</caption>
              <thead><tr><th scope="col">Product</th><th scope="col">Latest image</th><th scope="col">Findings by severity</th><th scope="col">KEV</th><th scope="col">Scan</th></tr></thead>
              <tbody>{list.map((p) => <ProductRow key={p.id} product={p} images={imagesOf.get(p.id) ?? []} />)}</tbody>
            </table>
          </div>
        </section>
      )}
      <div className="two-columns">
        <section aria-labelledby="running-title">
          <h2 id="running-title">Scans in progress</h2>
          {running.length === 0 ? <p className="muted">No scan is running.</p> : (
            <ul className="plain">
              {running.map(({ product, image }) => {
                const state = image.latestScan!.latestScanState;
                const percent = Math.round(state.progress?.percent ?? 0);
                return (
                  <li key={image.id}>
                    <Link href={`/products/${product.id}/images/${image.id}`}>{product.name} · {image.name}</Link>{' '}
                    <StateBadge state={state.type} /> {state.progress?.phase ?? 'waiting'}
                    <progress max={100} value={percent} aria-label={`Scan of ${image.name}`}>{percent}%</progress> {percent}%
                  </li>
                );
              })}
            </ul>
          )}
        </section>
        <Escalations products={list} />
      </div>
      {list.length > 0 && <Trend products={list} imagesOf={imagesOf} />}
    </Page>
  );
}

function ProductRow({ product, images }: { product: Product; images: Image[] }) {
  const latest = [...images].reverse().find((i) => i.latestScan?.latestScanState.type === 'completed') ?? images.at(-1);
  const counts = useQuery({ queryKey: ['severity-counts', latest?.id], queryFn: () => severityCounts(latest!.id), enabled: latest?.latestScan?.latestScanState.type === 'completed' });
  return (
    <tr>
      <th scope="row"><Link href={`/products/${product.id}`}>{product.name}</Link></th>
      <td>{latest ? <Link href={`/products/${product.id}/images/${latest.id}`}>{latest.name}{latest.version ? ` ${latest.version}` : ''}</Link> : <span className="muted">no image yet</span>}</td>
      <td>{counts.data ? <span className="counts">{SEVERITIES.filter((s) => counts.data[s] > 0).map((s) => <span key={s}><Severity value={s} /> {counts.data[s]}</span>)}{SEVERITIES.every((s) => counts.data[s] === 0) && <span className="muted">none</span>}</span> : <span className="muted">—</span>}</td>
      <td>{latest?.counts?.kev ? <><Kev value /> {latest.counts.kev}</> : <span className="muted">0</span>}</td>
      <td>{latest?.latestScan ? <StateBadge state={latest.latestScan.latestScanState.type} /> : <span className="muted">—</span>}</td>
    </tr>
  );
}

function Escalations({ products }: { products: Product[] }) {
  const escalations = useQuery({
    queryKey: ['escalations', products.map((p) => p.id)],
    queryFn: async () => (await Promise.all(products.slice(0, 50).map(async (p) =>
      expectData(await api.GET('/api/v4/products/{productId}/findings/-/escalations', { params: { path: { productId: p.id } } })).escalations.map((e) => ({ ...e, product: p })))))
      .flat().sort((a, b) => b.createTime.localeCompare(a.createTime)).slice(0, 10),
    enabled: products.length > 0,
  });
  return (
    <section aria-labelledby="escalations-title">
      <h2 id="escalations-title">Recent escalations</h2>
      {escalations.error && <ErrorNotice error={escalations.error} />}
      {escalations.data?.length === 0 || products.length === 0 ? <p className="muted">No finding's risk rose recently.</p> : (
        <ul className="plain">
          {escalations.data?.map((e) => (
            <li key={e.id}>
              {e.finding && <Severity value={e.finding.severity} />}{' '}
              {e.findingId ? <Link href={`/products/${e.product.id}/findings/${e.findingId}`}>{e.finding?.name ?? e.fingerprint}</Link> : (e.finding?.name ?? e.fingerprint)}
              {' '}<span className="muted">{e.reason.replace(/-/g, ' ')} · {e.product.name} · {formatDate(e.createTime)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Trend({ products, imagesOf }: { products: Product[]; imagesOf: Map<string, Image[]> }) {
  const [productId, setProductId] = useState(products[0]!.id);
  const completed = (imagesOf.get(productId) ?? []).filter((i) => i.latestScan?.latestScanState.type === 'completed').slice(-12);
  const points = useQuery({
    queryKey: ['trend', productId, completed.map((i) => i.id)],
    queryFn: async () => Promise.all(completed.map(async (i) => ({ name: i.version ? `${i.name} ${i.version}` : i.name, counts: await severityCounts(i.id) }))),
    enabled: completed.length > 0,
  });
  return (
    <section aria-labelledby="trend-title">
      <h2 id="trend-title">Findings across image versions</h2>
      <label>Product{' '}
        <select value={productId} onChange={(e) => setProductId(e.target.value)}>
          {products.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
        </select>
      </label>
      {completed.length === 0 ? <p className="muted">This product has no scanned image yet.</p>
        : points.data ? <Suspense fallback={<Loading what="the chart" />}><TrendChart points={points.data} label={`Findings by severity for each image of the selected product`} /></Suspense> : <Loading what="the trend" />}
    </section>
  );
}

function NewProduct() {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const queries = useQueryClient();
  const create = useMutation({
    mutationFn: async () => expectData(await api.POST('/api/v4/products', { body: { name, ...(description ? { description } : {}) } })),
    onSuccess: async (product) => {
      await queries.invalidateQueries({ queryKey: ['products'] });
      navigate(`/products/${bareId(product.id)}`);
    },
  });
  if (!open) return <button type="button" className="primary" onClick={() => setOpen(true)}>New product</button>;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form className="inline-form" onSubmit={submit} aria-label="New product">
      <label>Name <input required value={name} onChange={(e) => setName(e.target.value)} autoFocus /></label>
      <label>Description <input value={description} onChange={(e) => setDescription(e.target.value)} /></label>
      <button type="submit" className="primary" disabled={create.isPending}>Create product</button>
      <button type="button" onClick={() => setOpen(false)}>Cancel</button>
      {create.error && <FormError error={create.error} />}
    </form>
  );
}
