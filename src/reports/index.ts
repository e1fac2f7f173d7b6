// Every report generator, as one list; `findReport` resolves an id or alias.
import type { ReportGenerator } from './report.js';

export const reports: ReportGenerator[] = [];

export function findReport(name: string): ReportGenerator | undefined {
  const key = name.toLowerCase();
  return reports.find((r) => r.id === key || r.aliases.some((a) => a.toLowerCase() === key));
}
