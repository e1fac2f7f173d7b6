// Ids are ULIDs (26 characters, Crockford base32); times are ISO 8601 UTC strings.
import { monotonicFactory } from 'ulid';

// Monotonic: ids made in the same millisecond still sort in the order they were made, so rows ordered by
// (time, id), such as a scan's state history, keep their order when two moves land in one millisecond.
const ulid = monotonicFactory();
export const newId = (): string => ulid();
export const nowIso = (): string => new Date().toISOString();
export const ULID_PATTERN = '^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$';
export const isUlid = (value: string): boolean => new RegExp(ULID_PATTERN).test(value);
