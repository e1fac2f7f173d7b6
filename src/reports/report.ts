// A report generator is a pure function of a stored scan result: the API serves it, `firmscope scan --format`
// writes it offline. Generators register in index.ts.
import type { EngineFinding, ScanResult, VexJustification } from '../engine/types.js';

export interface ReportSubject {
  product: { id: string; name: string };
  image: { id: string; name: string; version?: string; createTime: string };
  scan: { id: string; createTime: string };
}

// The justification labels live with the engine's types, below the store that records them.
export { VEX_JUSTIFICATIONS, type VexJustification } from '../engine/types.js';

/** A finding as the service stores it: the engine's finding plus its id and workflow status. */
export interface ReportFinding extends EngineFinding {
  id: string;
  issueStatus: 'new' | 'inProgress' | 'remediated' | 'rejected';
  /** Why a rejected finding does not apply, when the team recorded it. */
  justification?: VexJustification;
  /** The comment of the change that set the current status. */
  statusComment?: string;
}

export interface ReportInput {
  result: ScanResult;
  /** Absent offline (`firmscope scan`): generators then name the image after its file. */
  subject?: ReportSubject;
  /** Findings with ids and statuses when the service has them; offline, the engine's findings. */
  findings?: ReportFinding[];
  /** Fixed clock for reproducible output in tests; defaults to now. */
  now?: Date;
}

export interface ReportGenerator {
  /** Kebab-case id, e.g. 'sbom-cyclonedx'. */
  id: string;
  /** Names accepted by `firmscope scan --format` and the API, e.g. ['cyclonedx']. */
  aliases: string[];
  /** Media type of the output, e.g. 'application/vnd.cyclonedx+json'. */
  mediaType: string;
  /** Version of the standard the output follows, e.g. '1.6'. */
  specVersion?: string;
  generate(input: ReportInput): Promise<Buffer | string>;
}
