// NUL (U+0000) in text input: PostgreSQL cannot store it in a text column (the request answered 500) and no
// name, id, e-mail or comment legitimately holds one. Refused with 400 naming the field, on both databases:
// for every route by one hook in app.ts (body, query string, path params) and where multipart fields are read.
import { InvalidInputError } from '../errors.js';

const NUL = '\u0000';

/**
 * Parsed input only: objects from JSON, forms, query strings (null-prototype objects) and path params. A raw
 * upload body is a stream (or a buffer) and is not looked into.
 */
function isParsedObject(value: object): value is Record<string, unknown> {
  return !ArrayBuffer.isView(value) && !(value instanceof ArrayBuffer) && typeof (value as { pipe?: unknown }).pipe !== 'function';
}

/** The path of the first string or key holding NUL ('body.filters.1.value'), or undefined. Iterative: any depth. */
export function findNul(value: unknown, path: string): string | undefined {
  const stack: Array<[unknown, string]> = [[value, path]];
  while (stack.length > 0) {
    const [item, at] = stack.pop()!;
    if (typeof item === 'string') {
      if (item.includes(NUL)) return at;
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], `${at}.${i}`]);
    } else if (item !== null && typeof item === 'object' && isParsedObject(item)) {
      const entries = Object.entries(item);
      for (const [key] of entries) if (key.includes(NUL)) return `${at}.${key.replaceAll(NUL, '\\0')}`;
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], `${at}.${entries[i]![0]}`]);
    }
  }
  return undefined;
}

/** Throws InvalidInputError (400) naming the first field that holds NUL. */
export function refuseNul(value: unknown, path: string): void {
  const field = findNul(value, path);
  if (field) throw new InvalidInputError(`${field} must not contain a NUL character`, [{ reason: 'invalidArgument', field }]);
}
