// Builds the scan's crypto-asset inventory from per-file detections: one asset per algorithm (with parameter
// and mode), library, protocol, certificate and key, each with its paths, evidence and the components of the
// files that use it. Algorithm details carry the PQC assessment so the grid, reports and CBOM share one truth.
import type { Component, CryptoAsset, Evidence } from '../types.js';
import { ALGORITHMS } from './algorithms.js';
import type { AlgorithmHit, FileDetections } from './detections.js';
import { keyLabel } from './key-facts.js';
import type { AlgorithmSpec } from './libraries.js';
import type { Material } from './material.js';
import { assess } from './pqc.js';

const MAX_EVIDENCE = 25;
const CURVES = new Set(['P-192', 'P-224', 'P-256', 'P-384', 'P-521', 'brainpoolP256r1', 'brainpoolP384r1', 'brainpoolP512r1']);
const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9.]+/g, '-').replace(/^-|-$/g, '');

/** Maps detector names to catalog entries: curve constants become ECC with the curve as parameter. */
export function normalizeSpec(spec: AlgorithmSpec): AlgorithmSpec {
  if (CURVES.has(spec.algorithm)) return { algorithm: 'ECC', parameter: spec.algorithm };
  return spec;
}

/** Keys that verify firmware: UEFI Secure Boot variables (PK, KEK, db) and package/update signing keys. */
export function isFirmwareSigning(material: Material): boolean {
  return ['PK', 'KEK', 'db'].includes(material.context?.efiVariable ?? '') || material.format === 'usign';
}

/** Algorithm uses a key or certificate implies: its key algorithm and size, and its signature algorithm. */
export function materialAlgorithms(material: Material): AlgorithmHit[] {
  const out: AlgorithmHit[] = [];
  const key = material.key;
  const firmwareSigning = isFirmwareSigning(material);
  if (key && ALGORITHMS.has(key.algorithm)) {
    const parameter = key.algorithm === 'ECDSA' ? key.curve : ['RSA', 'DSA', 'DH'].includes(key.algorithm) && key.bits ? String(key.bits) : undefined;
    out.push({ algorithm: key.algorithm, parameter, method: material.kind === 'certificate' ? 'certificate-key' : 'key', what: `${material.kind} ${keyLabel(key)}`, offset: material.offset, kind: 'crypto', firmwareSigning });
  }
  const cert = material.certificate;
  if (cert?.signatureHash) out.push({ algorithm: cert.signatureHash, method: 'certificate-signature', what: `certificate signed with ${cert.signatureAlgorithm}`, offset: material.offset, kind: 'crypto', firmwareSigning });
  return out;
}

interface Builder {
  asset: CryptoAsset;
  components: Set<string>;
}

export class AssetBuilder {
  private readonly byRef = new Map<string, Builder>();

  constructor(private readonly components: Component[]) {}

  private componentsOf(path: string): string[] {
    return this.components.filter((c) => c.paths.includes(path)).map((c) => c.ref);
  }

  private upsert(ref: string, create: () => Omit<CryptoAsset, 'ref' | 'paths' | 'evidence'>, path: string, evidence: Evidence): CryptoAsset {
    let entry = this.byRef.get(ref);
    if (!entry) {
      entry = { asset: { ref, ...create(), paths: [], evidence: [] }, components: new Set() };
      this.byRef.set(ref, entry);
    }
    if (!entry.asset.paths.includes(path)) entry.asset.paths.push(path);
    if (entry.asset.evidence.length < MAX_EVIDENCE && !entry.asset.evidence.some((e) => e.path === evidence.path && e.method === evidence.method && e.match === evidence.match)) entry.asset.evidence.push(evidence);
    for (const c of this.componentsOf(path)) entry.components.add(c);
    return entry.asset;
  }

  addAlgorithm(path: string, hit: AlgorithmHit): void {
    if (hit.kind === 'non-crypto') return;
    const spec = normalizeSpec(hit);
    const pqc = assess(spec.algorithm, spec.parameter);
    if (!pqc) return;
    const name = [spec.algorithm, spec.parameter, spec.mode].filter(Boolean).join('-');
    const asset = this.upsert(`crypto:algorithm:${slug(name)}`, () => ({
      assetType: 'algorithm',
      name,
      details: { algorithm: spec.algorithm, parameterSet: spec.parameter, mode: spec.mode, primitive: pqc.primitive, classicalSecurityLevel: pqc.classicalSecurityLevel, nistQuantumSecurityLevel: pqc.nistQuantumSecurityLevel, quantumClass: pqc.quantumClass, nistApproved: pqc.nistApproved, methods: [], libraries: [], protocols: [] },
    }), path, { path, method: hit.method, match: hit.what, offset: hit.offset });
    const details = asset.details as { methods: string[]; libraries: string[]; protocols: string[]; firmwareSigning?: boolean };
    if (hit.firmwareSigning) details.firmwareSigning = true;
    if (!details.methods.includes(hit.method)) details.methods.push(hit.method);
    if (hit.library && !details.libraries.includes(hit.library)) details.libraries.push(hit.library);
    if (hit.protocol && !details.protocols.includes(hit.protocol)) details.protocols.push(hit.protocol);
  }

  addFile(detections: FileDetections): void {
    const { path } = detections;
    for (const hit of detections.algorithms) this.addAlgorithm(path, hit);
    for (const library of detections.libraries) {
      const name = library.version ? `${library.name} ${library.version}` : library.name;
      const asset = this.upsert(`crypto:library:${library.id}${library.version ? '@' + library.version : ''}`, () => ({
        assetType: 'library', name, details: { library: library.name, version: library.version, algorithms: [], functions: [] },
      }), path, { path, method: 'library-symbol', match: library.markers.join(', '), offset: library.offset });
      const details = asset.details as { algorithms: string[]; functions: string[] };
      for (const spec of library.algorithms) {
        const label = [spec.algorithm, spec.parameter, spec.mode].filter(Boolean).join('-');
        if (!details.algorithms.includes(label)) details.algorithms.push(label);
      }
      for (const fn of library.functions) if (!details.functions.includes(fn) && details.functions.length < 100) details.functions.push(fn);
    }
    for (const protocol of detections.protocols) {
      const asset = this.upsert(`crypto:protocol:${slug(protocol.protocol)}`, () => ({
        assetType: 'protocol', name: protocol.protocol, details: { protocol: protocol.protocol, versions: [], cipherSuites: [], names: [], algorithms: [], settings: {} },
      }), path, { path, method: protocol.method, match: [...protocol.versions, ...protocol.names.slice(0, 5)].join(', ') || protocol.cipherSuites.slice(0, 3).join(', '), offset: protocol.offset });
      const details = asset.details as { versions: string[]; cipherSuites: string[]; names: string[]; algorithms: string[]; settings: Record<string, string> };
      const merge = (into: string[], values: string[]) => values.forEach((v) => into.includes(v) || into.push(v));
      merge(details.versions, protocol.versions);
      merge(details.cipherSuites, protocol.cipherSuites);
      merge(details.names, protocol.names);
      merge(details.algorithms, protocol.algorithms.map((s) => [normalizeSpec(s).algorithm, normalizeSpec(s).parameter, s.mode].filter(Boolean).join('-')));
      Object.assign(details.settings, protocol.settings ?? {});
      for (const { via, ...spec } of protocol.algorithms) this.addAlgorithm(path, { ...spec, method: protocol.method === 'config' ? 'config' : 'protocol-string', what: `${protocol.protocol} ${via ?? protocol.names[0] ?? protocol.cipherSuites[0] ?? 'algorithm'}`, offset: protocol.offset, kind: 'crypto', protocol: protocol.protocol });
    }
    for (const material of detections.materials) this.addMaterial(path, material);
  }

  addMaterial(path: string, material: Material): void {
    for (const hit of materialAlgorithms(material)) this.addAlgorithm(path, hit);
    const evidence: Evidence = { path, method: `${material.format}${material.encoding ? ' ' + material.encoding : ''}`, offset: material.offset, match: material.comment };
    const context = material.context ?? {};
    if (material.kind === 'certificate' && material.certificate) {
      const cert = material.certificate;
      const asset = this.upsert(`crypto:certificate:${cert.sha256.slice(0, 24)}`, () => ({
        assetType: 'certificate', name: cert.commonName ?? cert.subject, details: { ...cert, format: material.format, contexts: [] },
      }), path, { ...evidence, match: cert.subject });
      const contexts = (asset.details as { contexts: Array<Record<string, string>> }).contexts;
      const entry = { path, ...context };
      if (!contexts.some((c) => JSON.stringify(c) === JSON.stringify(entry))) contexts.push(entry);
      return;
    }
    const type = material.kind === 'signature' ? 'related-crypto-material' : material.kind;
    const id = material.keyId ? material.keyId.slice(0, 24) : `${slug(path)}@${material.offset}`;
    const label = material.key ? keyLabel(material.key) : 'unknown key';
    this.upsert(`crypto:${type}:${id}`, () => ({
      assetType: type,
      name: `${label} ${material.kind === 'signature' ? 'signature' : material.kind === 'private-key' ? 'private key' : 'public key'} (${material.format})`,
      details: { ...material.key, keyId: material.keyId, format: material.format, encoding: material.encoding, encrypted: material.encrypted, encryption: material.encryption, weakPassword: material.weakPassword, comment: material.comment, ...context },
    }), path, evidence);
  }

  build(): CryptoAsset[] {
    return [...this.byRef.values()]
      .map(({ asset, components }) => (components.size ? { ...asset, components: [...components].sort() } : asset))
      .sort((a, b) => a.assetType.localeCompare(b.assetType) || a.name.localeCompare(b.name));
  }
}
