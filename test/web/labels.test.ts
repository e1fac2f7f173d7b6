// The web UI names finding types and issue statuses with the findings reports' words (it cannot import them).
import { expect, it } from 'vitest';
import { FINDING_TYPE_LABEL, STATUS_LABEL } from '../../src/reports/report-labels.js';
import { labelOf } from '../../web/src/labels.js';

it('uses the reports\' label for every finding type and issue status', () => {
  for (const [id, label] of Object.entries({ ...FINDING_TYPE_LABEL, ...STATUS_LABEL })) expect(labelOf(id)).toBe(label);
  expect(labelOf('completed')).toBe('completed');
});
