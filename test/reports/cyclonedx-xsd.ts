// Validates CycloneDX 1.6 XML against the official XSD (../shared/schemas/cyclonedx/bom-1.6.xsd) with xmllint.
// The XSD imports the SPDX licence schema by URL; nothing outside is reachable, so a copy of the XSD points the
// import at the local spdx.xsd.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedPath } from '../support/shared.js';
import { tempDir } from '../support/temp-dirs.js';

let schema: string | undefined;

function localSchema(): string {
  // (a folder of tempDir is removed when the test file that made it ends)
  if (schema && existsSync(schema)) return schema;
  const dir = tempDir('cdx-xsd');
  const xsd = readFileSync(sharedPath('schemas', 'cyclonedx', 'bom-1.6.xsd'), 'utf8')
    .replace('schemaLocation="http://cyclonedx.org/schema/spdx"', 'schemaLocation="spdx.xsd"');
  writeFileSync(join(dir, 'spdx.xsd'), readFileSync(sharedPath('schemas', 'cyclonedx', 'spdx.xsd')));
  writeFileSync(join(dir, 'bom-1.6.xsd'), xsd);
  return (schema = join(dir, 'bom-1.6.xsd'));
}

/** xmllint's complaints about `xml` (empty when it validates). */
export function cycloneDxXsdErrors(xml: string): string[] {
  const dir = tempDir('cdx-doc');
  const file = join(dir, 'bom.xml');
  writeFileSync(file, xml);
  try {
    execFileSync('xmllint', ['--noout', '--nonet', '--schema', localSchema(), file], { stdio: 'pipe' });
    return [];
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer }).stderr ?? error);
    return stderr.split('\n').filter((l) => l && !l.endsWith('fails to validate'));
  }
}
