// Validates SARIF logs against the OASIS SARIF 2.1.0 JSON schema (draft-04) shipped in @microsoft/jest-sarif,
// with ajv 8 through ajv-draft-04 and ajv-formats (uri, uri-reference, date-time).
import { createRequire } from 'node:module';
import type { ErrorObject } from 'ajv';

const require = createRequire(import.meta.url);
type Validator = ((doc: unknown) => boolean) & { errors?: ErrorObject[] | null };
const Ajv04 = require('ajv-draft-04') as new (options: Record<string, unknown>) => { compile(schema: unknown): Validator };
const addFormats = require('ajv-formats') as (ajv: unknown) => unknown;
const schema = require('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json') as Record<string, unknown>;

/** `officialSchema`: another copy of the schema (e.g. ../shared/schemas/sarif/sarif-schema-2.1.0.json, OASIS errata 01). */
export function sarifValidator(officialSchema: Record<string, unknown> = schema): (doc: unknown) => string[] {
  // The schema's language-tag pattern has a stray ']' that is only legal outside unicode mode.
  const ajv = new Ajv04({ strict: false, allErrors: true, unicodeRegExp: false });
  addFormats(ajv);
  const validate = ajv.compile(officialSchema);
  return (doc) => (validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`));
}
