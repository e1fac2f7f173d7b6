// The post-quantum compliance view of a scan, shared by the PQC JSON and PDF reports: one row per detected
// algorithm and parameter set with its NIST IR 8547 assessment and evidence, the summary counts and score, and
// the certificates and keys that carry quantum-vulnerable public-key algorithms.
import { basename } from 'node:path';
import type { QuantumClass } from '../engine/crypto/algorithms.js';
import { assess, readinessScore, type PqcAssessment } from '../engine/crypto/pqc.js';
import type { CryptoAsset, Evidence } from '../engine/types.js';
import type { ReportInput } from './report.js';

export interface PqcRow extends PqcAssessment {
  id: string;
  name: string;
  mode?: string;
  component: string;
  protocol?: string;
  firmwareSigning: boolean;
  paths: string[];
  evidence: Evidence[];
}

export interface PqcSummary {
  score: number;
  algorithms: number;
  byClass: Record<QuantumClass, number>;
  compliant: number;
  notCompliant: number;
  certificates: number;
  expiredCertificates: number;
  privateKeys: number;
  publicKeys: number;
  /** Earliest NIST IR 8547 deadline reached by an algorithm in the image (deprecation or disallowance year). */
  earliestTransition?: { status: string; year: number };
}

export interface PqcModel {
  id: string;
  parent: string;
  imageName: string;
  productName: string;
  generatedAt: string;
  rows: PqcRow[];
  summary: PqcSummary;
  certificates: CryptoAsset[];
  keys: CryptoAsset[];
}

function componentName(input: ReportInput, asset: CryptoAsset): string {
  const ref = asset.components?.[0];
  const component = ref ? input.result.components.find((c) => c.ref === ref) : undefined;
  if (component) return component.version ? `${component.name} ${component.version}` : component.name;
  return asset.paths[0] ? basename(asset.paths[0]) : input.result.image.fileName;
}

export function pqcModel(input: ReportInput): PqcModel {
  const { result, subject } = input;
  const rows: PqcRow[] = [];
  for (const asset of result.cryptoAssets) {
    if (asset.assetType !== 'algorithm') continue;
    const d = asset.details as { algorithm?: string; parameterSet?: string; mode?: string; protocols?: string[]; firmwareSigning?: boolean };
    const assessment = d.algorithm ? assess(d.algorithm, d.parameterSet, d.firmwareSigning === true) : undefined;
    if (!assessment) continue;
    rows.push({
      ...assessment,
      id: asset.ref,
      name: asset.name,
      mode: d.mode,
      component: componentName(input, asset),
      protocol: d.protocols?.[0],
      firmwareSigning: d.firmwareSigning === true,
      paths: asset.paths,
      evidence: asset.evidence,
    });
  }
  const order: QuantumClass[] = ['broken', 'quantum-vulnerable', 'weakened', 'quantum-resistant'];
  rows.sort((a, b) => order.indexOf(a.quantumClass) - order.indexOf(b.quantumClass) || a.name.localeCompare(b.name));
  const certificates = result.cryptoAssets.filter((a) => a.assetType === 'certificate');
  const keys = result.cryptoAssets.filter((a) => a.assetType === 'private-key' || a.assetType === 'public-key');
  const byClass = Object.fromEntries(order.map((c) => [c, rows.filter((r) => r.quantumClass === c).length])) as Record<QuantumClass, number>;
  const deadlines = rows.flatMap((r) => r.transitions.filter((t) => t.status !== 'ACCEPTABLE' && t.year !== undefined).map((t) => ({ status: t.status, year: t.year! })));
  const upcoming = deadlines.filter((t) => t.year >= 2024).sort((a, b) => a.year - b.year)[0];
  return {
    id: subject?.scan.id ?? result.image.hashes.sha256.slice(0, 26),
    parent: subject ? `products/${subject.product.id}/images/${subject.image.id}` : result.image.fileName,
    imageName: subject?.image.name ?? result.image.fileName,
    productName: subject?.product.name ?? '',
    generatedAt: (input.now ?? new Date()).toISOString(),
    rows,
    summary: {
      score: readinessScore(rows.map((r) => r.quantumClass)),
      algorithms: rows.length,
      byClass,
      compliant: rows.filter((r) => r.compliant).length,
      notCompliant: rows.filter((r) => !r.compliant).length,
      certificates: certificates.length,
      expiredCertificates: certificates.filter((c) => (c.details as { expired?: boolean }).expired).length,
      privateKeys: keys.filter((k) => k.assetType === 'private-key').length,
      publicKeys: keys.filter((k) => k.assetType === 'public-key').length,
      earliestTransition: upcoming,
    },
    certificates,
    keys,
  };
}
