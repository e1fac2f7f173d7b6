// The report types of the service and the route each one is fetched from, for `firmscope report` and
// `firmscope findings --output sarif`.
import type { FirmscopeClient } from '../../client/index.js';
import type { ImageRef } from './api.js';
import { CliError } from './session.js';

/** Each report type with its formats (the first is the default). */
export const REPORT_TYPES: Record<string, string[]> = {
  findings: ['json', 'csv', 'pdf', 'html'],
  'sbom-cyclonedx': ['json', 'xml'],
  'sbom-spdx': ['json'],
  pqc: ['json', 'pdf'],
  cbom: ['json'],
  'vex-openvex': ['json'],
  'vex-cyclonedx': ['json'],
  sarif: ['json'],
};

export const REPORT_TYPES_HELP = Object.entries(REPORT_TYPES).map(([t, f]) => `${t} (${f.join('|')})`).join(', ');

/** The report document as bytes, with its media type. */
export async function fetchReport(client: FirmscopeClient, image: ImageRef, type: string, format?: string): Promise<{ bytes: Buffer; mediaType: string }> {
  const formats = REPORT_TYPES[type];
  if (!formats) throw new CliError(`unknown report type '${type}'; one of: ${Object.keys(REPORT_TYPES).join(', ')}`);
  const chosen = format ?? formats[0]!;
  if (!formats.includes(chosen)) throw new CliError(`the ${type} report comes as ${formats.join(' or ')}, not ${chosen}`);
  const path = { productId: image.productId, imageId: image.id };
  const parseAs = 'arrayBuffer' as const;
  const answer = await (() => {
    switch (type) {
      case 'findings': return client.POST('/api/v4/products/{productId}/images/{imageId}/findingsReport:download', { params: { path, query: { contentType: chosen as 'json' } }, body: {}, parseAs });
      case 'sarif': return client.POST('/api/v4/products/{productId}/images/{imageId}/findingsReport:sarif', { params: { path }, body: {}, parseAs });
      case 'sbom-cyclonedx': return client.GET('/api/v4/products/{productId}/images/{imageId}/sbomReport:cycloneDX', { params: { path, query: { contentType: chosen } }, parseAs });
      case 'sbom-spdx': return client.GET('/api/v4/products/{productId}/images/{imageId}/sbomReport:SPDX', { params: { path }, parseAs });
      case 'pqc': return client.GET('/api/v4/products/{productId}/images/{imageId}/cryptographicMaterialsReport', { params: { path, query: { mode: 'pqc-compliance', contentType: chosen } }, parseAs });
      case 'cbom': return client.GET('/api/v4/products/{productId}/images/{imageId}/cbomReport:cycloneDX', { params: { path }, parseAs });
      case 'vex-openvex': return client.GET('/api/v4/products/{productId}/images/{imageId}/vexReport:openVEX', { params: { path }, parseAs });
      default: return client.GET('/api/v4/products/{productId}/images/{imageId}/vexReport:cycloneDX', { params: { path }, parseAs });
    }
  })();
  const { response } = answer;
  if (!response.ok) {
    const error = answer.error as unknown;
    const text = error instanceof ArrayBuffer ? Buffer.from(error).toString('utf8') : typeof error === 'string' ? error : JSON.stringify(error);
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch { /* not JSON: the text itself */ }
    throw new CliError(`the server could not make the ${type} report (${response.status}): ${message}`);
  }
  return { bytes: Buffer.from(answer.data as ArrayBuffer), mediaType: response.headers.get('content-type') ?? '' };
}
