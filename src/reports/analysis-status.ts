// Whether the scan behind a report analysed the whole image, for every report to say so: the findings report
// (a field, a banner in the PDF) and the SBOMs (a metadata property, an annotation). A report of an incomplete
// analysis must never look like a clean one.
import type { ScanResult } from '../engine/types.js';

export interface AnalysisStatus {
  complete: boolean;
  /** Why not complete (empty when complete). */
  incompleteReasons: string[];
}

/** The result's completeness; undefined for a result stored before summaries existed (unknown, so not claimed). */
export function analysisStatus(result: ScanResult): AnalysisStatus | undefined {
  const summary = result.summary;
  if (!summary) return undefined;
  return { complete: summary.complete, incompleteReasons: summary.incompleteReasons };
}

/** One line for a person: "analysis incomplete: a; b". */
export function incompleteLine(status: AnalysisStatus): string {
  return `analysis incomplete: ${status.incompleteReasons.join('; ')}`;
}

/** The CycloneDX metadata properties (SBOM and CBOM alike): firmscope:analysisComplete and one reason each. */
export function analysisProperties(status: AnalysisStatus): Array<{ name: string; value: string }> {
  return [
    { name: 'firmscope:analysisComplete', value: String(status.complete) },
    ...status.incompleteReasons.map((reason) => ({ name: 'firmscope:analysisIncompleteReason', value: reason })),
  ];
}
