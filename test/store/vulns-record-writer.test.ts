// The version stamp of a replaced vulnerability record (the matcher names a record's version by it).
import { describe, expect, it } from 'vitest';
import { nextImportStamp } from '../../src/store/vulns-record-writer.js';

describe('nextImportStamp', () => {
  it('is the write time when that is after the stored stamp, or for a new record', () => {
    expect(nextImportStamp('2025-01-01T00:00:00.002Z', '2025-01-01T00:00:00.001Z')).toBe('2025-01-01T00:00:00.002Z');
    expect(nextImportStamp('2025-01-01T00:00:00.002Z', undefined)).toBe('2025-01-01T00:00:00.002Z');
  });

  it('moves one millisecond past a stored stamp that is not earlier (same millisecond, clock stepped back)', () => {
    expect(nextImportStamp('2025-01-01T00:00:00.001Z', '2025-01-01T00:00:00.001Z')).toBe('2025-01-01T00:00:00.002Z');
    expect(nextImportStamp('2024-12-31T23:59:59.999Z', '2025-01-01T00:00:00.001Z')).toBe('2025-01-01T00:00:00.002Z');
  });
});
