// PQC compliance report, JSON (API: cryptographicMaterialsReport?mode=pqc-compliance&contentType=json).
// Structure per API-NOTES: {id, parent, name, productName, summary, findings: [{..., compliance: [{nistIr8547}]}]}.
import { STANDARD, TRANSITION_YEAR_MEANING } from '../engine/crypto/pqc-table.js';
import { pqcModel, type PqcRow } from './pqc-model.js';
import type { ReportGenerator, ReportInput } from './report.js';

function finding(row: PqcRow): Record<string, unknown> {
  const nistIr8547: Record<string, unknown> = {
    algorithm: row.algorithm,
    parameter: { parameter: row.parameter ?? row.name, transitions: row.transitions },
  };
  if (row.compliant) nistIr8547.compliant = { reason: row.reason, quantumSecurityClass: row.quantumClass };
  else nistIr8547.notCompliant = { reason: row.reason, recommendations: row.recommendations };
  return {
    id: row.id,
    name: row.name,
    component: row.component,
    cryptoAlgorithmName: row.algorithm,
    cryptoAlgorithmParameter: row.parameter,
    cryptoAlgorithmMode: row.mode,
    cryptoAlgorithmPrimitive: row.primitive,
    ...(row.protocol ? { cryptoProtocolName: row.protocol } : {}),
    isNistIR8547Compliant: row.compliant,
    quantumSecurityClass: row.quantumClass,
    classicalSecurityLevel: row.classicalSecurityLevel,
    nistQuantumSecurityLevel: row.nistQuantumSecurityLevel,
    firmwareSigning: row.firmwareSigning,
    compliance: [{ nistIr8547 }],
    evidence: row.evidence.map((e) => ({ path: e.path, method: e.method, match: e.match, offset: e.offset })),
  };
}

export function pqcJson(input: ReportInput): Record<string, unknown> {
  const model = pqcModel(input);
  return {
    id: model.id,
    parent: model.parent,
    name: model.imageName,
    productName: model.productName,
    summary: {
      ...model.summary,
      generatedAt: model.generatedAt,
      standard: STANDARD,
      transitionYearMeaning: TRANSITION_YEAR_MEANING,
    },
    findings: model.rows.map(finding),
    certificates: model.certificates.map((c) => ({ id: c.ref, name: c.name, paths: c.paths, ...c.details })),
    keys: model.keys.map((k) => ({ id: k.ref, type: k.assetType, name: k.name, paths: k.paths, ...k.details })),
  };
}

export const pqcJsonReport: ReportGenerator = {
  id: 'pqc-json',
  aliases: ['pqc'],
  mediaType: 'application/json',
  async generate(input) {
    return JSON.stringify(pqcJson(input), null, 2);
  },
};
