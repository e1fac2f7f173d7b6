// Product: its images by version and date, with their scan state, and the upload form.
import { useImages, useProduct } from '../queries.js';
import { Link } from '../router.js';
import { useCan } from '../session.js';
import { Empty, ErrorNotice, formatDate, Loading, Page, StateBadge } from '../ui.js';
import { ImageUpload } from '../upload.js';
import { byteSize } from '../../../src/format/byte-size.js';

export function ProductPage({ productId }: { productId: string }) {
  const product = useProduct(productId);
  const images = useImages(productId);
  const canUpload = useCan('images.create');
  if (product.error) return <ErrorNotice error={product.error} action="Check the address, or go back to the dashboard." />;
  if (!product.data) return <Loading what="the product" />;
  const list = [...(images.data ?? [])].reverse();
  return (
    <Page title={product.data.name} crumbs={<><Link href="/">Dashboard</Link> / {product.data.name}</>}>
      {product.data.description && <p>{product.data.description}</p>}
      <section aria-labelledby="images-title">
        <h2 id="images-title">Images</h2>
        {images.error && <ErrorNotice error={images.error} />}
        {images.isLoading && <Loading what="images" />}
        {images.data && list.length === 0 && <Empty title="No image yet.">{canUpload ? <p>Upload a firmware image below: the scan starts by itself.</p> : <p>Nothing was uploaded to this product yet.</p>}</Empty>}
        {list.length > 0 && (
          <div className="table-wrap" tabIndex={0}>
            <table>
              <thead><tr><th scope="col">Image</th><th scope="col">Version</th><th scope="col">Uploaded</th><th scope="col">Size</th><th scope="col">Scan</th></tr></thead>
              <tbody>
                {list.map((image) => {
                  const state = image.latestScan?.latestScanState;
                  return (
                    <tr key={image.id}>
                      <th scope="row"><Link href={`/products/${productId}/images/${image.id}`}>{image.name}</Link></th>
                      <td>{image.version ?? <span className="muted">—</span>}</td>
                      <td>{formatDate(image.createTime)}</td>
                      <td>{byteSize(image.size)}</td>
                      <td>{state ? <><StateBadge state={state.type} />{state.progress && state.type !== 'completed' ? ` ${Math.round(state.progress.percent)}% ${state.progress.phase}` : ''}{image.analysis && !image.analysis.complete && state.type === 'completed' ? <span className="badge warn">incomplete</span> : null}</> : <span className="muted">not scanned</span>}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {canUpload && <ImageUpload productId={productId} />}
    </Page>
  );
}
