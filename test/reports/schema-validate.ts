// Validates documents against the official JSON schemas in ../shared/schemas with ajv (draft-07).
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import addFormats2019 from 'ajv-formats-draft2019';
import { sharedPath } from '../support/shared.js';

const load = (...p: string[]) => JSON.parse(readFileSync(sharedPath('schemas', ...p), 'utf8')) as Record<string, unknown>;

export function schemaValidator(kind: 'cyclonedx-1.6' | 'spdx-2.3'): (doc: unknown) => string[] {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // iri-reference and idn-email, used by the CycloneDX schema.
  addFormats2019(ajv);
  let validate;
  if (kind === 'cyclonedx-1.6') {
    ajv.addSchema(load('cyclonedx', 'spdx.schema.json'));
    ajv.addSchema(load('cyclonedx', 'jsf-0.82.schema.json'));
    validate = ajv.compile(load('cyclonedx', 'bom-1.6.schema.json'));
  } else {
    validate = ajv.compile(load('spdx', 'spdx-2.3-schema.json'));
  }
  return (doc) => (validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`));
}
