// The web UI names finding types and issue statuses with the findings reports' words (it cannot import them).
import { expect, it } from 'vitest';
import { FINDING_TYPE_LABEL, STATUS_LABEL } from '../../src/reports/report-labels.js';
import { labelOf } from '../../web/src/labels.js';

it('uses the reports\' label for every finding type and issue status', () => {
  for (const [id, label] of Object.entries({ ...FINDING_TYPE_LABEL, ...STATUS_LABEL })) expect(labelOf(id)).toBe(label);
  expect(labelOf('completed')).toBe('completed');
});

it('names every match confidence label of the engine, surest first (the grid\'s Match filter)', async () => {
  const { CONFIDENCE_SCORES } = await import('../../src/engine/vulns/confidence.js');
  const { CONFIDENCE_LABELS } = await import('../../web/src/labels.js');
  const byScore = Object.entries(CONFIDENCE_SCORES).sort(([, a], [, b]) => b - a).map(([label]) => label);
  expect(Object.keys(CONFIDENCE_LABELS).sort()).toEqual(Object.keys(CONFIDENCE_SCORES).sort());
  expect(Object.keys(CONFIDENCE_LABELS).map((l) => CONFIDENCE_SCORES[l as keyof typeof CONFIDENCE_SCORES])).toEqual(byScore.map((l) => CONFIDENCE_SCORES[l as keyof typeof CONFIDENCE_SCORES]));
});
