// A finding's identity across images and scans: a hash of what it is (type, vulnerability or rule) and where
// (component or path), never of offsets, times or ids, so the same problem in the next image matches.
import { createHash } from 'node:crypto';
import type { FindingType } from './types.js';

export function findingFingerprint(type: FindingType, what: string, where: string): string {
  return createHash('sha256').update(`${type}\0${what}\0${where}`).digest('hex').slice(0, 32);
}
