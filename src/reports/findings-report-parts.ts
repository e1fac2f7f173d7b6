// What the findings PDF and HTML reports are both drawn from: the model (subject and findings), the digest (risk,
// what to fix first, changes) and the extras (coverage, components, crypto, binaries), built once from the input.
import { findingsDigest, type FindingsDigest } from './findings-digest.js';
import { findingsExtras, type FindingsExtras } from './findings-extras.js';
import { findingsModel, type FindingsModel } from './findings-model.js';
import type { ReportInput } from './report.js';

export interface FindingsReportParts {
  model: FindingsModel;
  digest: FindingsDigest;
  extras: FindingsExtras;
}

export function findingsReportParts(input: ReportInput): FindingsReportParts {
  const model = findingsModel(input);
  return { model, digest: findingsDigest(model, input.baseline), extras: findingsExtras(input, model.findings) };
}
