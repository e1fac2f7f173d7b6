import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { describe, expect, it } from 'vitest';
import { findReport } from '../../src/reports/index.js';
import { buildCycloneDx, cycloneDxReport } from '../../src/reports/sbom-cyclonedx.js';
import { haveShared } from '../support/shared.js';
import { schemaValidator } from './schema-validate.js';
import { fixedNow, sbomFixture } from './sbom-fixture.js';

const subject = {
  product: { id: 'p1', name: 'Router X' },
  image: { id: 'i1', name: 'router-x-1.2.bin', version: '1.2', createTime: '2026-01-01T00:00:00Z' },
  scan: { id: 's1', createTime: '2026-01-01T00:00:00Z' },
};

/** Volatile fields masked for the golden file. */
function mask(doc: Record<string, unknown>): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(doc)) as Record<string, any>;
  copy.serialNumber = 'urn:uuid:MASKED';
  copy.metadata.timestamp = 'MASKED';
  copy.metadata.tools.components.forEach((t: Record<string, unknown>) => (t.version = 'MASKED'));
  return copy;
}

describe('CycloneDX 1.6 SBOM', () => {
  it('is registered under its id and aliases', () => {
    expect(findReport('sbom-cyclonedx')).toBe(cycloneDxReport);
    expect(findReport('CycloneDX')).toBe(cycloneDxReport);
    expect(cycloneDxReport.specVersion).toBe('1.6');
  });

  it('puts the image with its hashes in metadata and every component with identifiers, hashes and evidence', () => {
    const doc = buildCycloneDx({ result: sbomFixture, now: fixedNow }) as Record<string, any>;
    expect(doc.specVersion).toBe('1.6');
    expect(doc.metadata.component).toMatchObject({ type: 'firmware', name: 'fw.bin', 'bom-ref': 'firmscope:image' });
    expect(doc.metadata.component.hashes).toEqual(
      expect.arrayContaining([{ alg: 'SHA-256', content: 'e'.repeat(64) }, { alg: 'SHA-1', content: 'e'.repeat(40) }, { alg: 'MD5', content: 'e'.repeat(32) }]),
    );
    const busybox = doc.components.find((c: any) => c.name === 'busybox');
    expect(busybox).toMatchObject({ type: 'application', version: '1.31.1-1', cpe: 'cpe:2.3:a:busybox:busybox:1.31.1:*:*:*:*:*:*:*', purl: 'pkg:openwrt/busybox@1.31.1-1?arch=mipsel_24kc', 'bom-ref': 'busybox@1.31.1-1' });
    expect(busybox.hashes).toHaveLength(3);
    expect(busybox.evidence.occurrences).toEqual(
      expect.arrayContaining([{ location: 'fw.bin_extract/squashfs/bin/busybox', offset: 4660 }, { location: 'fw.bin_extract/squashfs/usr/lib/opkg/status' }]),
    );
    expect(busybox.evidence.identity[0].methods.map((m: any) => m.technique).sort()).toEqual(['binary-analysis', 'manifest-analysis']);
    const edk2 = doc.components.find((c: any) => c.name === 'edk2');
    expect(edk2.version).toBeUndefined();
    expect(edk2.cpe).toBeUndefined();
    const deps = new Map(doc.dependencies.map((d: any) => [d.ref, d.dependsOn ?? []]));
    expect(deps.get('busybox@1.31.1-1')).toEqual(['libc@1.1.24-2']);
    expect((deps.get('firmscope:image') as string[]).length).toBe(sbomFixture.components.length);
  });

  it('names the image after the stored image when the service passes a subject', () => {
    const doc = buildCycloneDx({ result: sbomFixture, subject, now: fixedNow }) as Record<string, any>;
    expect(doc.metadata.component).toMatchObject({ name: 'router-x-1.2.bin', version: '1.2' });
  });

  it('is reproducible for the same input and clock', async () => {
    const a = await cycloneDxReport.generate({ result: sbomFixture, now: fixedNow });
    const b = await cycloneDxReport.generate({ result: sbomFixture, now: fixedNow });
    expect(a).toBe(b);
  });

  it('matches the golden file (volatile fields masked)', async () => {
    const doc = JSON.parse(String(await cycloneDxReport.generate({ result: sbomFixture, subject, now: fixedNow })));
    await expect(JSON.stringify(mask(doc), null, 2) + '\n').toMatchFileSnapshot('golden/sbom-cyclonedx.json');
  });

  it('validates with the CycloneDX library validator', async () => {
    const json = String(await cycloneDxReport.generate({ result: sbomFixture, subject, now: fixedNow }));
    const validator = new Validation.JsonStrictValidator(Spec.Version.v1dot6);
    expect(await validator.validate(json)).toBeNull();
  });

  it.runIf(haveShared('schemas', 'cyclonedx', 'bom-1.6.schema.json'))('validates against the official bom-1.6 schema with ajv', async () => {
    const validate = schemaValidator('cyclonedx-1.6');
    expect(validate(JSON.parse(String(await cycloneDxReport.generate({ result: sbomFixture, subject, now: fixedNow }))))).toEqual([]);
    const empty = { ...sbomFixture, components: [] };
    expect(validate(JSON.parse(String(await cycloneDxReport.generate({ result: empty, now: fixedNow }))))).toEqual([]);
  });

  it.runIf(haveShared('schemas', 'cyclonedx', 'bom-1.6.schema.json'))('the schema check catches a broken document (the test can fail)', () => {
    const validate = schemaValidator('cyclonedx-1.6');
    const doc = buildCycloneDx({ result: sbomFixture, now: fixedNow }) as Record<string, any>;
    doc.components[0].type = 'not-a-type';
    expect(validate(doc).length).toBeGreaterThan(0);
  });
});
