// A report generator is a pure function of a stored scan result: the API serves it, `firmscope scan --format`
// writes it offline. Generators register in index.ts.
import type { EngineFinding, ScanResult, VexJustification } from '../engine/types.js';

export interface ReportSubject {
  product: { id: string; name: string };
  /** createTime: when the image was uploaded. */
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
  /** The triage history of each finding that has one, by finding id, oldest first. */
  history?: Record<string, StatusChangeRecord[]>;
  /** The image the findings report compares with (the product's previous image, or the one asked for). */
  baseline?: ReportBaseline;
  /** The sections of the findings PDF and HTML reports to produce (default: all); the cover is always there. */
  sections?: FindingsSection[];
}

/** One change of a finding's issue status, as the workflow recorded it. */
export interface StatusChangeRecord {
  status: ReportFinding['issueStatus'];
  comment?: string;
  justification?: VexJustification;
  time: string;
  /** Who made the change (an e-mail address), when known. */
  author?: string;
}

/** Another image of the product and the findings of its latest completed scan, to say what changed. */
export interface ReportBaseline {
  image: { id: string; name: string; version?: string; createTime: string };
  findings: Array<Pick<EngineFinding, 'fingerprint' | 'pname' | 'name' | 'severity' | 'findingType'> & { component?: { name: string; version?: string } }>;
}

export const FINDINGS_SECTIONS = ['summary', 'coverage', 'findings', 'components', 'crypto', 'binaries'] as const;
export type FindingsSection = (typeof FINDINGS_SECTIONS)[number];

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
