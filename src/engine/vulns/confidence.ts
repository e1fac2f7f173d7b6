// How sure a dependency vulnerability's match is: each way it matched has a label and a score, and the finding
// takes the surest. Scores order the labels (a grid sorts and filters on them); they are not probabilities.
import type { MatchConfidence } from '../types.js';
import type { MatchDetails } from './vuln-finding.js';

export const CONFIDENCE_SCORES: Record<MatchConfidence['label'], number> = {
  'package-advisory': 0.95,
  'exact-cpe': 0.9,
  'product-alias': 0.75,
  'cpe-all-versions': 0.7,
  'name-only': 0.5,
  'platform-unknown': 0.4,
  // set by the kernel triage (kernel-triage.ts); 'kernel-code-unknown' keeps the match's own score up to 0.6
  'kernel-code-built': 0.95,
  'kernel-code-unknown': 0.6,
  'kernel-code-not-built': 0.05,
};

function labelOf(d: MatchDetails): MatchConfidence['label'] {
  if (d.matcher === 'osv-package') return 'package-advisory';
  if (d.platformStatus === 'unknown') return 'platform-unknown';
  if (d.origin === 'name') return 'name-only';
  if (d.origin === 'alias') return 'product-alias';
  return d.kind === 'all-versions' ? 'cpe-all-versions' : 'exact-cpe';
}

const shared = new Map<MatchConfidence['label'], Map<number, MatchConfidence>>();

/**
 * The one frozen object for a label and score: thousands of findings carry one of a few confidences, and a shared
 * object is one less for each to keep (a kernel's findings alone are thousands). Never modified; replace it.
 */
export function confidenceOf(label: MatchConfidence['label'], score = CONFIDENCE_SCORES[label]): MatchConfidence {
  let scores = shared.get(label);
  if (!scores) shared.set(label, (scores = new Map()));
  let c = scores.get(score);
  if (!c) scores.set(score, (c = Object.freeze({ label, score })));
  return c;
}

/** The confidence of a finding from its matches (the surest one); undefined without any. */
export function matchConfidence(details: MatchDetails[]): MatchConfidence | undefined {
  let best: MatchConfidence['label'] | undefined;
  for (const d of details) {
    const label = labelOf(d);
    if (!best || CONFIDENCE_SCORES[label] > CONFIDENCE_SCORES[best]) best = label;
  }
  return best && confidenceOf(best);
}
