// A finding's identity across images and scans: a hash of what it is (type, vulnerability or rule) and where
// (component or path), never of offsets, times or ids, so the same problem in the next image matches.
import { hash } from 'node:crypto';
import type { FindingType } from './types.js';

export function findingFingerprint(type: FindingType, what: string, where: string): string {
  // one-shot hash: half the time of a Hash object per call, and a scan makes thousands of fingerprints
  return hash('sha256', `${type}\0${what}\0${where}`, 'hex').slice(0, 32);
}
