// The first bytes of an extracted file (kept by the scan: GET …/fileHead) as a hex dump: offset, 16 bytes in
// hex, and the same bytes as ASCII (a dot for anything unprintable).
import { useQuery } from '@tanstack/react-query';
import { api, expectData } from './api.js';
import { ErrorNotice, Loading } from './ui.js';

const WIDTH = 16;

export function hexRows(bytes: Uint8Array): Array<{ offset: string; hex: string; ascii: string }> {
  const rows = [];
  for (let at = 0; at < bytes.length; at += WIDTH) {
    const line = bytes.subarray(at, at + WIDTH);
    const hex = Array.from(line, (b) => b.toString(16).padStart(2, '0'));
    rows.push({
      offset: at.toString(16).padStart(8, '0'),
      // Two groups of eight, padded so the ASCII column stays aligned on a short last line.
      hex: [hex.slice(0, 8).join(' '), hex.slice(8).join(' ')].join('  ').padEnd(WIDTH * 3, ' '),
      ascii: Array.from(line, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join(''),
    });
  }
  return rows;
}

export function HexView({ productId, imageId, scanId, path }: { productId: string; imageId: string; scanId: string; path: string }) {
  const head = useQuery({
    queryKey: ['file-head', scanId, path],
    queryFn: async () => expectData(await api.GET('/api/v4/products/{productId}/images/{imageId}/scans/{scanId}/fileHead', { params: { path: { productId, imageId, scanId }, query: { path } } })),
  });
  if (head.error) return <ErrorNotice error={head.error} />;
  if (!head.data) return <Loading what="the first bytes" />;
  if (head.data.bytes === undefined) return <p className="muted">This scan kept no bytes of its files (it ran before they were kept). Start a new scan to see them.</p>;
  const bytes = Uint8Array.from(atob(head.data.bytes), (c) => c.charCodeAt(0));
  if (bytes.length === 0) return <p className="muted">The file is empty.</p>;
  return (
    <>
      <p className="muted small">The first {bytes.length} of {head.data.size} bytes.</p>
      <div className="table-wrap hex-wrap" tabIndex={0}><table className="hex" aria-label={`First ${bytes.length} bytes of the file`}>
        <thead><tr><th scope="col">Offset</th><th scope="col">Hex</th><th scope="col">ASCII</th></tr></thead>
        <tbody>{hexRows(bytes).map((row) => <tr key={row.offset}><th scope="row"><code>{row.offset}</code></th><td><code>{row.hex}</code></td><td><code>{row.ascii}</code></td></tr>)}</tbody>
      </table></div>
    </>
  );
}
