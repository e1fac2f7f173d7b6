// Compare: a baseline and a target image of a product; new, resolved and unchanged findings (the findings grid's
// compare mode) and component version changes (the two scans' component lists).
import { useQuery } from '@tanstack/react-query';
import { api, expectData } from '../api.js';
import { FindingsTable } from '../findings-table.js';
import { useImages, useProducts, type Image } from '../queries.js';
import { navigate, useLocation } from '../router.js';
import { Empty, ErrorNotice, Loading, Page } from '../ui.js';

const label = (i: Image) => `${i.name}${i.version ? ` ${i.version}` : ''} (${i.createTime.slice(0, 10)})`;

export function ComparePage() {
  const { search } = useLocation();
  const products = useProducts();
  const productId = search.get('product') ?? products.data?.[0]?.id ?? '';
  const images = useImages(productId);
  const scanned = (images.data ?? []).filter((i) => i.latestScan?.latestScanState.type === 'completed');
  const target = search.get('target') ?? scanned.at(-1)?.id ?? '';
  const baseline = search.get('baseline') ?? scanned.filter((i) => i.id !== target).at(-1)?.id ?? '';
  const set = (patch: Record<string, string>) => {
    const next = new URLSearchParams({ product: productId, baseline, target, ...patch });
    navigate(`/compare?${next}`, { replace: true });
  };
  const byId = new Map(scanned.map((i) => [i.id, i]));
  const ready = baseline && target && baseline !== target && byId.has(baseline) && byId.has(target);
  return (
    <Page title="Compare images">
      {products.error && <ErrorNotice error={products.error} />}
      {products.data?.length === 0 && <Empty title="No products yet."><p>Create a product and upload two versions of its firmware to compare them.</p></Empty>}
      {!!products.data?.length && (
        <div className="fields compare-pick">
          <label>Product <select value={productId} onChange={(e) => navigate(`/compare?product=${e.target.value}`, { replace: true })}>{products.data.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}</select></label>
          <label>Baseline <select value={baseline} onChange={(e) => set({ baseline: e.target.value })}><option value="">choose</option>{scanned.map((i) => <option key={i.id} value={i.id}>{label(i)}</option>)}</select></label>
          <label>Target <select value={target} onChange={(e) => set({ target: e.target.value })}><option value="">choose</option>{scanned.map((i) => <option key={i.id} value={i.id}>{label(i)}</option>)}</select></label>
        </div>
      )}
      {images.isLoading && productId && <Loading what="images" />}
      {images.data && scanned.length < 2 && <Empty title="Two scanned images are needed."><p>Upload another version of this product's firmware; when its scan completes, compare it here.</p></Empty>}
      {ready && (
        <>
          <FindingsTable
            key={`${baseline}-${target}`}
            productId={productId}
            scope={[{ field: 'compareLeftImageId', value: baseline }, { field: 'compareRightImageId', value: target }]}
            title={`Findings: ${label(byId.get(baseline)!)} → ${label(byId.get(target)!)}`}
            csvName="comparison.csv"
            extraColumns={[{ id: 'comparison', header: 'Change', accessorFn: (r) => r.comparison?.status ?? '', enableSorting: false }]}
          />
          <ComponentChanges productId={productId} baseline={byId.get(baseline)!} target={byId.get(target)!} />
        </>
      )}
    </Page>
  );
}

function ComponentChanges({ productId, baseline, target }: { productId: string; baseline: Image; target: Image }) {
  const load = async (image: Image) => expectData(await api.GET('/api/v4/products/{productId}/images/{imageId}/scans/{scanId}/components', { params: { path: { productId, imageId: image.id, scanId: image.latestScan!.id } } })).components;
  const changes = useQuery({
    queryKey: ['component-changes', baseline.id, target.id],
    queryFn: async () => {
      const [before, after] = await Promise.all([load(baseline), load(target)]);
      const versions = (list: typeof before) => {
        const map = new Map<string, Set<string>>();
        for (const c of list) map.set(c.name, (map.get(c.name) ?? new Set()).add(c.version ?? '?'));
        return map;
      };
      const b = versions(before);
      const a = versions(after);
      const rows: Array<{ name: string; before: string; after: string; change: string }> = [];
      for (const name of new Set([...b.keys(), ...a.keys()])) {
        const was = [...(b.get(name) ?? [])].sort().join(', ');
        const now = [...(a.get(name) ?? [])].sort().join(', ');
        if (was === now) continue;
        rows.push({ name, before: was || '—', after: now || '—', change: !was ? 'added' : !now ? 'removed' : 'version changed' });
      }
      return rows.sort((x, y) => x.name.localeCompare(y.name));
    },
  });
  return (
    <section aria-labelledby="component-changes-title">
      <h2 id="component-changes-title">Component changes</h2>
      {changes.error && <ErrorNotice error={changes.error} />}
      {changes.isLoading && <Loading what="components" />}
      {changes.data?.length === 0 && <p className="muted">The two images have the same components and versions.</p>}
      {!!changes.data?.length && (
        <div className="table-wrap" tabIndex={0}><table>
          <thead><tr><th scope="col">Component</th><th scope="col">Baseline</th><th scope="col">Target</th><th scope="col">Change</th></tr></thead>
          <tbody>{changes.data.map((r) => <tr key={r.name}><th scope="row">{r.name}</th><td>{r.before}</td><td>{r.after}</td><td>{r.change}</td></tr>)}</tbody>
        </table></div>
      )}
    </section>
  );
}
