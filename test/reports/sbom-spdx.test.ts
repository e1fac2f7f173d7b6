import { describe, expect, it } from 'vitest';
import { findReport } from '../../src/reports/index.js';
import { buildSpdx, spdxReport } from '../../src/reports/sbom-spdx.js';
import { haveShared } from '../support/shared.js';
import { schemaValidator } from './schema-validate.js';
import { fixedNow, sbomFixture } from './sbom-fixture.js';

function mask(doc: Record<string, any>): Record<string, any> {
  const copy = JSON.parse(JSON.stringify(doc));
  copy.documentNamespace = 'MASKED';
  copy.creationInfo.created = 'MASKED';
  copy.creationInfo.creators = ['MASKED'];
  return copy;
}

describe('SPDX 2.3 SBOM', () => {
  it('is registered under its id and aliases', () => {
    expect(findReport('sbom-spdx')).toBe(spdxReport);
    expect(findReport('SPDX')).toBe(spdxReport);
  });

  it('describes the image and lists packages with checksums, CPE and purl references and relationships', () => {
    const doc = buildSpdx({ result: sbomFixture, now: fixedNow }) as Record<string, any>;
    expect(doc.spdxVersion).toBe('SPDX-2.3');
    expect(doc.creationInfo.created).toBe('2026-01-02T03:04:05Z');
    const image = doc.packages.find((p: any) => p.SPDXID === 'SPDXRef-Image');
    expect(image.checksums).toEqual([
      { algorithm: 'SHA256', checksumValue: 'e'.repeat(64) },
      { algorithm: 'SHA1', checksumValue: 'e'.repeat(40) },
      { algorithm: 'MD5', checksumValue: 'e'.repeat(32) },
    ]);
    const busybox = doc.packages.find((p: any) => p.name === 'busybox');
    expect(busybox.SPDXID).toMatch(/^SPDXRef-[A-Za-z0-9.-]+$/);
    expect(busybox.licenseDeclared).toBe('GPL-2.0');
    expect(busybox.externalRefs).toEqual([
      { referenceCategory: 'SECURITY', referenceType: 'cpe23Type', referenceLocator: 'cpe:2.3:a:busybox:busybox:1.31.1:*:*:*:*:*:*:*' },
      { referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: 'pkg:openwrt/busybox@1.31.1-1?arch=mipsel_24kc' },
    ]);
    const libc = doc.packages.find((p: any) => p.name === 'libc');
    expect(doc.relationships).toContainEqual({ spdxElementId: busybox.SPDXID, relationshipType: 'DEPENDS_ON', relatedSpdxElement: libc.SPDXID });
    expect(doc.relationships).toContainEqual({ spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: 'SPDXRef-Image' });
    expect(doc.relationships.filter((r: any) => r.relationshipType === 'CONTAINS')).toHaveLength(sbomFixture.components.length);
    const ids = doc.packages.map((p: any) => p.SPDXID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('matches the golden file (volatile fields masked)', async () => {
    const doc = JSON.parse(String(await spdxReport.generate({ result: sbomFixture, now: fixedNow })));
    await expect(JSON.stringify(mask(doc), null, 2) + '\n').toMatchFileSnapshot('golden/sbom-spdx.json');
  });

  it.runIf(haveShared('schemas', 'spdx', 'spdx-2.3-schema.json'))('validates against the official SPDX 2.3 schema with ajv', async () => {
    const validate = schemaValidator('spdx-2.3');
    expect(validate(JSON.parse(String(await spdxReport.generate({ result: sbomFixture, now: fixedNow }))))).toEqual([]);
    const broken = buildSpdx({ result: sbomFixture, now: fixedNow }) as Record<string, any>;
    broken.packages[1].checksums[0].algorithm = 'CRC32';
    expect(validate(broken).length).toBeGreaterThan(0);
  });
});
