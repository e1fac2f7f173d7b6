// EDK II release markers in UEFI modules (edk2-markers.ts): a module holding strings that the edk2 source gained or
// lost at known stable releases is evidence of an edk2 component, with those markers; the inventory infers the
// image's release from the markers of all its modules (platform-release.ts).
import { Edk2MarkerSearch, edk2MarkerTable, type Edk2Marker, type Edk2MarkerTable } from './edk2-markers.js';
import type { Candidate, FileView, Identifier } from './identifier.js';
import { isUefiModule } from './uefi-modules.identifier.js';
import { buildPurl } from '../purl.js';

export function createEdk2MarkersIdentifier(table: () => Edk2MarkerTable = edk2MarkerTable): Identifier {
  let search: Edk2MarkerSearch | undefined;
  return {
    id: 'edk2-markers',
    description: 'EDK II release markers in UEFI modules: strings first or last in a stable release (method edk2-release-markers)',
    selects: isUefiModule,
    perFile: true,
    async identify(file: FileView): Promise<Candidate[]> {
      search ??= new Edk2MarkerSearch(table());
      const found = new Set<Edk2Marker>();
      for await (const { data } of file.chunks()) search.find(data, found);
      if (found.size === 0) return [];
      return [{
        key: 'edk2',
        name: 'edk2',
        type: 'firmware',
        purl: buildPurl({ type: 'generic', name: 'edk2' }),
        confidence: 0.5,
        path: file.node.path,
        // the module is evidence of the platform it was built from, not the platform's own file
        primaryFile: false,
        evidence: { path: file.node.path, method: 'edk2-release-markers', match: search.evidence(found) },
      }];
    },
  };
}

export const edk2MarkersIdentifier = createEdk2MarkersIdentifier();
