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

// The OpenVEX schema is draft 2020-12.
const Ajv2020 = require('ajv/dist/2020') as typeof AjvClass;

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

/**
 * The official OpenVEX 0.2.0 JSON schema (draft 2020-12). Its `iri` format is RFC 3987's absolute IRI: any
 * scheme. ajv-formats-draft2019 also demands an IANA-registered scheme, which would refuse the purls (`pkg:`)
 * and CPEs the OpenVEX spec's own examples use as product ids, so `iri` is checked by syntax here.
 */
export function openVexSchemaValidator(): (doc: unknown) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  addFormats2019(ajv);
  ajv.addFormat('iri', (value: string) => /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/.test(value) && URL.canParse(value));
  const validate = ajv.compile(load('openvex', 'openvex_json_schema.json'));
  return (doc) => (validate(doc) ? [] : (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`));
}
