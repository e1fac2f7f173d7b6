// Findings report, JSON (API: findingsReport:json, findingsReport:download?contentType=json).
import { findingsModel } from './findings-model.js';
import type { ReportGenerator } from './report.js';

export const findingsJsonReport: ReportGenerator = {
  id: 'findings-json',
  aliases: ['findings'],
  mediaType: 'application/json',
  async generate(input) {
    return JSON.stringify(findingsModel(input), null, 2);
  },
};
