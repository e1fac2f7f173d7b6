// CBOM: a CycloneDX 1.6 document whose `cryptographic-asset` components are the scan's algorithms (primitive,
// parameter set, mode, classical and NIST quantum security levels), certificates, keys and protocols, linked
// through `dependencies[].provides` to the libraries, components and files that use them, with occurrences
// (path and offset) as evidence. API: cbomReport:cycloneDX; CLI: --format cbom.
import { createHash } from 'node:crypto';
import { assess } from '../engine/crypto/pqc.js';
import { transitionText } from '../engine/crypto/pqc-table.js';
import type { CryptoAsset, ScanResult } from '../engine/types.js';
import type { ReportGenerator, ReportInput } from './report.js';
import { analysisProperties, analysisStatus } from './analysis-status.js';

type Json = Record<string, unknown>;

const MODES = new Set(['cbc', 'ecb', 'ccm', 'gcm', 'cfb', 'ofb', 'ctr']);
const FUNCTIONS: Record<string, string[]> = {
  'block-cipher': ['encrypt', 'decrypt'], 'stream-cipher': ['encrypt', 'decrypt'], ae: ['encrypt', 'decrypt', 'tag'], hash: ['digest'], xof: ['digest'], mac: ['tag'],
  signature: ['sign', 'verify'], pke: ['encrypt', 'decrypt', 'sign', 'verify'], 'key-agree': ['keygen', 'keyderive'], kem: ['keygen', 'encapsulate', 'decapsulate'], kdf: ['keyderive'], drbg: ['generate'],
};
const PROTOCOL_TYPES: Record<string, string> = { TLS: 'tls', SSH: 'ssh', IKE: 'ike', IPsec: 'ipsec' };
const CURVE_ALGORITHMS = new Set(['ECC', 'ECDSA', 'ECDH']);

const uuidFrom = (seed: string): string => {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
const prop = (name: string, value: unknown): Json => ({ name: `firmscope:${name}`, value: String(value) });
const fileRef = (path: string): string => `file:${path}`;

function occurrences(asset: CryptoAsset): Json {
  return {
    occurrences: asset.evidence.map((e) => ({
      location: e.path,
      ...(e.offset !== undefined && e.offset >= 0 ? { offset: e.offset } : {}),
      additionalContext: [e.method, e.match].filter(Boolean).join(': '),
    })),
  };
}

function algorithm(asset: CryptoAsset): Json {
  const d = asset.details as { algorithm: string; parameterSet?: string; mode?: string; primitive: string; classicalSecurityLevel: number; nistQuantumSecurityLevel: number; quantumClass: string; nistApproved: boolean; firmwareSigning?: boolean };
  // Quantum facts come from the PQC table through assess(), as in the PQC report; the stored details only stand
  // in for an algorithm the catalog no longer knows.
  const pqc = assess(d.algorithm, d.parameterSet, d.firmwareSigning === true);
  const primitive = pqc?.primitive ?? d.primitive;
  const mode = d.mode?.toLowerCase();
  const properties: Json = {
    primitive,
    ...(d.parameterSet && !CURVE_ALGORITHMS.has(d.algorithm) ? { parameterSetIdentifier: d.parameterSet } : {}),
    ...(d.parameterSet && CURVE_ALGORITHMS.has(d.algorithm) ? { curve: d.parameterSet } : {}),
    ...(mode ? { mode: MODES.has(mode) ? mode : 'other' } : {}),
    executionEnvironment: 'software-plain-ram',
    implementationPlatform: 'unknown',
    cryptoFunctions: FUNCTIONS[primitive] ?? ['unknown'],
    classicalSecurityLevel: pqc?.classicalSecurityLevel ?? d.classicalSecurityLevel,
    nistQuantumSecurityLevel: pqc?.nistQuantumSecurityLevel ?? d.nistQuantumSecurityLevel,
  };
  return {
    cryptoProperties: { assetType: 'algorithm', algorithmProperties: properties },
    properties: [
      prop('quantumClass', pqc?.quantumClass ?? d.quantumClass),
      prop('nistApproved', pqc?.nistApproved ?? d.nistApproved),
      prop('nistIr8547Compliant', pqc?.compliant ?? false),
      ...(pqc ? [prop('nistIr8547Transition', transitionText(pqc.transitions))] : []),
      ...(pqc?.recommendations ?? []).map((r) => prop('recommendedMigration', `${r.parameter} (${r.security})`)),
    ],
  };
}

export function cbomDocument(input: ReportInput): Json {
  const { result } = input;
  const now = (input.now ?? new Date()).toISOString();
  const byName = new Map(result.cryptoAssets.filter((a) => a.assetType === 'algorithm').map((a) => [a.name, a.ref]));
  const signatureAlgorithms = new Map<string, Json>();
  const components: Json[] = [];
  const provides = new Map<string, Set<string>>();
  const provide = (by: string, ref: string) => (provides.get(by) ?? provides.set(by, new Set()).get(by)!).add(ref);

  for (const asset of result.cryptoAssets) {
    const base: Json = { type: 'cryptographic-asset', 'bom-ref': asset.ref, name: asset.name, evidence: occurrences(asset) };
    const d = asset.details as Record<string, unknown>;
    if (asset.assetType === 'algorithm') {
      const extra = algorithm(asset);
      components.push({ ...base, cryptoProperties: extra.cryptoProperties, properties: extra.properties });
    } else if (asset.assetType === 'certificate') {
      const sig = String(d.signatureAlgorithm);
      const sigRef = `cbom:signature-algorithm:${sig}`;
      if (!signatureAlgorithms.has(sig)) {
        signatureAlgorithms.set(sig, {
          type: 'cryptographic-asset', 'bom-ref': sigRef, name: sig,
          cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'signature', cryptoFunctions: ['sign', 'verify'], executionEnvironment: 'software-plain-ram', implementationPlatform: 'unknown', classicalSecurityLevel: 0, nistQuantumSecurityLevel: 0 }, ...(d.signatureAlgorithmOid ? { oid: d.signatureAlgorithmOid } : {}) },
        });
      }
      components.push({
        ...base,
        cryptoProperties: {
          assetType: 'certificate',
          certificateProperties: { subjectName: d.subject, issuerName: d.issuer, notValidBefore: d.notBefore, notValidAfter: d.notAfter, signatureAlgorithmRef: sigRef, certificateFormat: 'X.509', certificateExtension: d.format === 'PEM' ? 'pem' : 'der' },
        },
        properties: [prop('serialNumber', d.serialNumber), prop('sha256', d.sha256), prop('selfSigned', d.selfSigned), prop('expired', d.expired), prop('isCA', d.isCA)],
      });
    } else if (asset.assetType === 'private-key' || asset.assetType === 'public-key' || asset.assetType === 'related-crypto-material') {
      const keyAlgorithm = d.algorithm ? [d.algorithm, d.keyType === 'EC' ? d.curve : ['RSA', 'DSA', 'DH'].includes(String(d.algorithm)) ? d.bits : undefined].filter(Boolean).join('-') : undefined;
      const algorithmRef = keyAlgorithm ? byName.get(keyAlgorithm) ?? byName.get(String(d.algorithm)) : undefined;
      components.push({
        ...base,
        cryptoProperties: {
          assetType: 'related-crypto-material',
          relatedCryptoMaterialProperties: {
            type: asset.assetType === 'related-crypto-material' ? 'signature' : asset.assetType,
            ...(d.keyId ? { id: String(d.keyId) } : {}),
            ...(algorithmRef ? { algorithmRef } : {}),
            ...(typeof d.bits === 'number' ? { size: d.bits } : {}),
            ...(d.format ? { format: String(d.format) } : {}),
            securedBy: { mechanism: d.encrypted ? (d.weakPassword !== undefined ? 'Software (weak password)' : 'Software') : 'None' },
          },
        },
      });
    } else if (asset.assetType === 'protocol') {
      const p = d as { protocol: string; versions: string[]; cipherSuites: string[]; algorithms: string[] };
      components.push({
        ...base,
        cryptoProperties: {
          assetType: 'protocol',
          protocolProperties: {
            type: PROTOCOL_TYPES[p.protocol] ?? 'other',
            ...(p.versions.length ? { version: p.versions.join(', ') } : {}),
            ...(p.cipherSuites.length ? { cipherSuites: p.cipherSuites.map((name) => ({ name })) } : {}),
            cryptoRefArray: [...new Set(p.algorithms.map((a) => byName.get(a)).filter((r): r is string => !!r))],
          },
        },
      });
    } else if (asset.assetType === 'library') {
      const l = d as { library: string; version?: string; algorithms: string[] };
      components.push({ type: 'library', 'bom-ref': asset.ref, name: l.library, ...(l.version ? { version: l.version } : {}), evidence: occurrences(asset) });
      for (const label of l.algorithms) {
        const ref = byName.get(label);
        if (ref) provide(asset.ref, ref);
      }
      continue;
    }
    // Files and identified components that contain the asset provide it.
    for (const path of asset.paths) provide(fileRef(path), asset.ref);
    for (const ref of asset.components ?? []) provide(ref, asset.ref);
  }
  return document(result, now, components, [...signatureAlgorithms.values()], provides, input);
}

function document(result: ScanResult, now: string, crypto: Json[], extra: Json[], provides: Map<string, Set<string>>, input: ReportInput): Json {
  const files = [...provides.keys()].filter((r) => r.startsWith('file:')).sort().map((ref) => {
    const path = ref.slice(5);
    const node = result.files.find((f) => f.path === path);
    return { type: 'file', 'bom-ref': ref, name: path, ...(node?.sha256 ? { hashes: [{ alg: 'SHA-256', content: node.sha256 }] } : {}) };
  });
  const analysis = analysisStatus(result);
  const software = result.components.filter((c) => provides.has(c.ref)).map((c) => ({
    type: c.type, 'bom-ref': c.ref, name: c.name, ...(c.version ? { version: c.version } : {}), ...(c.cpe ? { cpe: c.cpe } : {}), ...(c.purl ? { purl: c.purl } : {}),
  }));
  const known = new Set([...crypto, ...extra, ...files, ...software].map((c) => c['bom-ref']));
  const dependencies = [...provides].filter(([ref]) => known.has(ref)).map(([ref, set]) => ({ ref, provides: [...set].filter((r) => known.has(r)).sort() }));
  const imageName = input.subject?.image.name ?? result.image.fileName;
  return {
    $schema: 'http://cyclonedx.org/schema/bom-1.6.schema.json',
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${uuidFrom(`${result.image.hashes.sha256}|${input.subject?.scan.id ?? ''}|cbom`)}`,
    version: 1,
    metadata: {
      timestamp: now,
      tools: { components: [{ type: 'application', name: 'firmscope', version: result.engineVersion }] },
      component: { type: 'firmware', 'bom-ref': 'image', name: imageName, ...(input.subject?.image.version ? { version: input.subject.image.version } : {}), hashes: [{ alg: 'SHA-256', content: result.image.hashes.sha256 }] },
      ...(analysis ? { properties: analysisProperties(analysis) } : {}),
    },
    components: [...software, ...files, ...crypto, ...extra],
    dependencies,
  };
}

export const cbomCycloneDxReport: ReportGenerator = {
  id: 'cbom-cyclonedx',
  aliases: ['cbom'],
  mediaType: 'application/vnd.cyclonedx+json',
  specVersion: '1.6',
  async generate(input) {
    return JSON.stringify(cbomDocument(input), null, 2);
  },
};
