import { describe, expect, it } from 'vitest';
import { findReport } from '../../src/reports/index.js';
import { cycloneDxXmlReport } from '../../src/reports/sbom-cyclonedx-xml.js';
import { needCommands, needSharedFile } from '../support/requirements.js';
import { sharedPath } from '../support/shared.js';
import { cycloneDxXsdErrors } from './cyclonedx-xsd.js';
import { fixedNow, sbomFixture } from './sbom-fixture.js';

const canValidate = needCommands(['xmllint'], 'CycloneDX XML validation')
  && needSharedFile(sharedPath('schemas', 'cyclonedx', 'bom-1.6.xsd'), 'schemas/cyclonedx/bom-1.6.xsd', 'CycloneDX XML validation');

describe('CycloneDX 1.6 XML SBOM', () => {
  it('is registered as cyclonedx-xml', () => {
    expect(findReport('sbom-cyclonedx-xml')).toBe(cycloneDxXmlReport);
    expect(findReport('cyclonedx-xml')).toBe(cycloneDxXmlReport);
  });

  it.runIf(canValidate)('validates against the official XSD and carries the components with their evidence', async () => {
    const xml = String(await cycloneDxXmlReport.generate({ result: sbomFixture, now: fixedNow }));
    expect(cycloneDxXsdErrors(xml)).toEqual([]);
    expect(xml).toContain('<bom xmlns="http://cyclonedx.org/schema/bom/1.6"');
    expect(xml).toMatch(/<component type="application" bom-ref="busybox@1.31.1-1">[\s\S]*?<evidence>[\s\S]*?<location>fw.bin_extract\/squashfs\/bin\/busybox<\/location>\s*<offset>4660<\/offset>/);
    expect(xml).toContain('<purl>pkg:openwrt/busybox@1.31.1-1?arch=mipsel_24kc</purl>');
  });

  it.runIf(canValidate)('fails validation when the document breaks the schema (the check can fail)', async () => {
    const xml = String(await cycloneDxXmlReport.generate({ result: sbomFixture, now: fixedNow }));
    expect(cycloneDxXsdErrors(xml.replace('<offset>4660</offset>', '<offset>-1</offset>')).length).toBeGreaterThan(0);
  });
});
