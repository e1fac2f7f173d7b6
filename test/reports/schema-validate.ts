// Validates documents against the official JSON schemas in ../shared/schemas with ajv (draft-07).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Ajv as AjvClass, ErrorObject } from 'ajv';
import { sharedPath } from '../support/shared.js';

// ajv and its format plugins are CommonJS; require() gives their constructors without ESM interop guesswork.
const require = createRequire(import.meta.url);
const Ajv = require('ajv') as typeof AjvClass;
const addFormats = require('ajv-formats') as (ajv: AjvClass) => AjvClass;
// iri-reference and idn-email, used by the CycloneDX schema.
const addFormats2019 = require('ajv-formats-draft2019') as (ajv: AjvClass) => AjvClass;

const load = (...p: string[]) => JSON.parse(readFileSync(sharedPath('schemas', ...p), 'utf8')) as Record<string, unknown>;

export function schemaValidator(kind: 'cyclonedx-1.6' | 'spdx-2.3'): (doc: unknown) => string[] {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  addFormats2019(ajv);
  if (kind === 'cyclonedx-1.6') {
    ajv.addSchema(load('cyclonedx', 'spdx.schema.json'));
    ajv.addSchema(load('cyclonedx', 'jsf-0.82.schema.json'));
  }
  const validate = ajv.compile(kind === 'cyclonedx-1.6' ? load('cyclonedx', 'bom-1.6.schema.json') : load('spdx', 'spdx-2.3-schema.json'));
  return (doc) => (validate(doc) ? [] : (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`));
}
