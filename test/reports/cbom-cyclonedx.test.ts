// The CBOM: CycloneDX 1.6 cryptographic-asset components, valid against the official schema, linked to the
// files, components and libraries that use them.
import { describe, expect, it } from 'vitest';
import type { ScanResult } from '../../src/engine/types.js';
import { findReport } from '../../src/reports/index.js';
import { haveShared } from '../support/shared.js';
import { NOW, corpusScan, haveCorpus, useGeneratedScan } from './pqc-fixture.js';
import { schemaValidator } from './schema-validate.js';

type Component = { type: string; 'bom-ref': string; name: string; cryptoProperties?: Record<string, any>; evidence?: { occurrences: Array<{ location: string; offset?: number }> }; properties?: Array<{ name: string; value: string }> };
type Bom = { specVersion: string; serialNumber: string; components: Component[]; dependencies: Array<{ ref: string; provides?: string[] }>; metadata: Record<string, any> };

const haveSchema = haveShared('schemas', 'cyclonedx', 'bom-1.6.schema.json');

describe('CBOM (CycloneDX 1.6)', () => {
  const generated = useGeneratedScan();
  const generate = async (r: ScanResult): Promise<Bom> => JSON.parse(String(await findReport('cbom')!.generate({ result: r, now: NOW })));

  it('is registered as cbom-cyclonedx (alias cbom), spec 1.6', () => {
    expect(findReport('cbom')).toMatchObject({ id: 'cbom-cyclonedx', specVersion: '1.6', mediaType: 'application/vnd.cyclonedx+json' });
  });

  it.skipIf(!haveSchema)('validates against the official schema', async () => {
    expect(schemaValidator('cyclonedx-1.6')(await generate(generated.result))).toEqual([]);
  });

  it('describes algorithms, certificates, keys and protocols as cryptographic assets', async () => {
    const bom = await generate(generated.result);
    expect(bom.specVersion).toBe('1.6');
    const crypto = bom.components.filter((c) => c.type === 'cryptographic-asset');
    const byName = Object.fromEntries(crypto.map((c) => [c.name, c]));
    expect(byName['AES-256-GCM']!.cryptoProperties).toEqual({
      assetType: 'algorithm',
      algorithmProperties: { primitive: 'block-cipher', parameterSetIdentifier: '256', mode: 'gcm', executionEnvironment: 'software-plain-ram', implementationPlatform: 'unknown', cryptoFunctions: ['encrypt', 'decrypt'], classicalSecurityLevel: 256, nistQuantumSecurityLevel: 5 },
    });
    expect(byName['ECDSA-P-256']!.cryptoProperties!.algorithmProperties).toMatchObject({ primitive: 'signature', curve: 'P-256', nistQuantumSecurityLevel: 0 });
    expect(byName['ML-KEM-768']!.cryptoProperties!.algorithmProperties).toMatchObject({ primitive: 'kem', parameterSetIdentifier: '768', classicalSecurityLevel: 192, nistQuantumSecurityLevel: 3 });
    expect(byName['RSA-2048']!.properties).toContainEqual({ name: 'firmscope:quantumClass', value: 'quantum-vulnerable' });
    const cert = crypto.find((c) => c.cryptoProperties!.assetType === 'certificate')!;
    expect(cert.cryptoProperties!.certificateProperties).toMatchObject({ subjectName: 'CN=Firmscope Test Root', issuerName: 'CN=Firmscope Test Root', certificateFormat: 'X.509' });
    expect(bom.components.find((c) => c['bom-ref'] === cert.cryptoProperties!.certificateProperties.signatureAlgorithmRef)!.name).toBe('sha1WithRSAEncryption');
    const key = crypto.find((c) => c.cryptoProperties!.assetType === 'related-crypto-material')!;
    expect(key.cryptoProperties!.relatedCryptoMaterialProperties).toMatchObject({ type: 'private-key', algorithmRef: byName['ECDSA-P-256']!['bom-ref'], size: 256, format: 'PEM', securedBy: { mechanism: 'None' } });
    const ssh = crypto.find((c) => c.cryptoProperties!.assetType === 'protocol')!;
    expect(ssh.cryptoProperties!.protocolProperties.type).toBe('ssh');
    expect(ssh.cryptoProperties!.protocolProperties.cryptoRefArray).toContain(byName['ML-KEM-768']!['bom-ref']);
    expect(byName['AES']!.evidence!.occurrences[0]).toMatchObject({ location: 'rootfs/usr/lib/libcrypto.so.1.1', offset: expect.any(Number) });
  });

  it('links assets to the files, components and libraries that provide them', async () => {
    const bom = await generate(generated.result);
    const ref = (name: string) => bom.components.find((c) => c.name === name)!['bom-ref'];
    const provides = (by: string) => bom.dependencies.find((d) => d.ref === by)?.provides ?? [];
    expect(provides('file:rootfs/etc/ssh/sshd_config')).toEqual(expect.arrayContaining([ref('3DES-CBC'), ref('ML-KEM-768'), ref('SSH')]));
    expect(provides('openssl@1.1.1w')).toEqual(expect.arrayContaining([ref('AES'), ref('RC4')]));
    const library = bom.components.find((c) => c.type === 'library' && c.name === 'OpenSSL')!;
    expect(provides(library['bom-ref'])).toEqual(expect.arrayContaining([ref('AES-256-GCM'), ref('RC4')]));
    const refs = new Set(bom.components.map((c) => c['bom-ref']));
    for (const d of bom.dependencies) for (const p of d.provides ?? []) expect(refs.has(p), p).toBe(true);
    expect(bom.serialNumber).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it.skipIf(!haveCorpus() || !haveSchema)('corpus: OVMF certificates and FACT keys validate too', async () => {
    const bom = await generate(await corpusScan());
    expect(schemaValidator('cyclonedx-1.6')(bom)).toEqual([]);
    const certs = bom.components.filter((c) => c.cryptoProperties?.assetType === 'certificate');
    expect(certs.map((c) => c.name).sort()).toEqual(['Microsoft Corporation KEK CA 2011', 'Microsoft Corporation UEFI CA 2011', 'Microsoft Windows Production PCA 2011', 'Red Hat Secure Boot (PK/KEK key 1)', 'dsaf']);
    expect(certs.find((c) => c.name === 'Microsoft Corporation KEK CA 2011')!.cryptoProperties!.certificateProperties.notValidAfter).toBe('2026-06-24T20:51:29.000Z');
  });

  it.skipIf(!haveCorpus())('corpus: matches the golden file', async () => {
    await expect(JSON.stringify(await generate(await corpusScan()), null, 2) + '\n').toMatchFileSnapshot('golden/cbom-corpus.json');
  });
});
