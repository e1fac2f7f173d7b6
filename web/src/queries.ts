// Shared data reads over the typed client, keyed for TanStack Query.
import { useQuery } from '@tanstack/react-query';
import { api, expectData, type Schemas } from './api.js';
import { SEVERITIES } from './ui.js';

export type Image = Schemas['Image'];
export type Product = Schemas['Product'];
export type FindingRow = Schemas['FindingRow'];
export type GridFilter = { field: string; value: string | number | boolean | Array<string | number | boolean>; comparator?: string };
export type SeverityCounts = Record<(typeof SEVERITIES)[number], number>;

const RUNNING = new Set(['queued', 'pending', 'in_progress', 'running', 'started']);
export const isRunning = (image: Image) => RUNNING.has(image.latestScan?.latestScanState.type ?? '') || (!!image.latestScan && !['completed', 'failed', 'cancelled'].includes(image.latestScan.latestScanState.type));

/** The last segment of a resource name: products are named `products/<id>`, the paths take `<id>`. */
export const bareId = (name: string) => name.slice(name.lastIndexOf('/') + 1);

/** The products, with `id` as the paths take it. */
export function useProducts() {
  return useQuery({ queryKey: ['products'], queryFn: async () => expectData(await api.GET('/api/v4/products')).products.map((p) => ({ ...p, id: bareId(p.id) })) });
}

export function useProduct(productId: string) {
  return useQuery({ queryKey: ['product', productId], queryFn: async () => expectData(await api.GET('/api/v4/products/{productId}', { params: { path: { productId } } })) });
}

export async function fetchImages(productId: string): Promise<Image[]> {
  const { images } = expectData(await api.GET('/api/v4/products/{productId}/images', { params: { path: { productId }, query: { status: true, withCounts: true } } }));
  return [...images].sort((a, b) => a.createTime.localeCompare(b.createTime));
}

/** The product's images, oldest first; refreshed every 2 s while a scan runs. */
export function useImages(productId: string) {
  return useQuery({
    queryKey: ['images', productId], queryFn: () => fetchImages(productId),
    refetchInterval: (query) => (query.state.data?.some(isRunning) ? 2000 : false),
  });
}

export function useImage(productId: string, imageId: string) {
  return useQuery({
    queryKey: ['image', imageId],
    queryFn: async () => expectData(await api.GET('/api/v4/products/{productId}/images/{imageId}', { params: { path: { productId, imageId }, query: { status: true } as never } })),
    refetchInterval: (query) => (query.state.data && isRunning(query.state.data) ? 2000 : false),
  });
}

export async function findingGrid(body: { filters: GridFilter[]; page?: { num?: number; size?: number }; sortBy?: { field: string; direction?: string }[] }) {
  return expectData(await api.POST('/api/v4/grids/findings:gridList', { body }));
}

/** Findings of an image by severity: one count query per severity (page size 1, the total is the count). */
export async function severityCounts(imageId: string): Promise<SeverityCounts> {
  const totals = await Promise.all(SEVERITIES.map(async (severity) =>
    (await findingGrid({ filters: [{ field: 'imageId', value: imageId }, { field: 'severity', value: severity }], page: { num: 0, size: 1 } })).total));
  return Object.fromEntries(SEVERITIES.map((s, i) => [s, totals[i]!])) as SeverityCounts;
}

export function useSeverityCounts(imageId: string | undefined, enabled = true) {
  return useQuery({ queryKey: ['severity-counts', imageId], queryFn: () => severityCounts(imageId!), enabled: !!imageId && enabled });
}
