// Ids are ULIDs (26 characters, Crockford base32); times are ISO 8601 UTC strings.
import { ulid } from 'ulid';

export const newId = (): string => ulid();
export const nowIso = (): string => new Date().toISOString();
export const ULID_PATTERN = '^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$';
export const isUlid = (value: string): boolean => new RegExp(ULID_PATTERN).test(value);
