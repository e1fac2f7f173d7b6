// UEFI modules belong to the platform release they were built from: a module whose own build paths name an
// EDK II release (the edk2 component lists it among its paths) depends on that edk2 component, which carries
// the release and the CPE vulnerability matching uses. The module keeps its own GUID identity. Where no build
// path names the release, the release markers of the image's modules bracket it (edk2-markers.ts).
import { buildCpe } from '../cpe.js';
import { buildPurl } from '../purl.js';
import type { Component } from '../types.js';
import { inferEdk2Release, parseMarkers } from './edk2-markers.js';

const PLATFORMS = new Set(['edk2']);

/**
 * Gives an unversioned edk2 component the release its modules' markers bracket, with its CPE. Not when another
 * edk2 component has a release already: build paths and version strings say more than markers.
 */
export function inferPlatformRelease(components: Component[]): void {
  const edk2 = components.filter((c) => c.name === 'edk2');
  const bare = edk2.find((c) => c.version === undefined);
  if (!bare || edk2.some((c) => c.version !== undefined)) return;
  const evidence = bare.evidence.filter((e) => e.method === 'edk2-release-markers');
  const inferred = inferEdk2Release(evidence.flatMap((e) => parseMarkers(e.match ?? '')));
  if (!inferred) return;
  const before = bare.ref;
  bare.version = inferred.release;
  bare.ref = `edk2@${inferred.release}`;
  bare.cpe = buildCpe({ vendor: 'tianocore', product: 'edk2', version: inferred.release });
  bare.purl = buildPurl({ type: 'generic', name: 'edk2', version: inferred.release });
  bare.evidence.push({ path: evidence[0]!.path, method: 'edk2-release-inferred', match: inferred.reason });
  for (const c of components) if (c.dependsOn?.includes(before)) c.dependsOn = c.dependsOn.map((r) => (r === before ? bare.ref : r)).sort();
}

export function attachModulesToPlatform(components: Component[]): void {
  const platforms = components.filter((c) => PLATFORMS.has(c.name) && c.version !== undefined && c.cpe !== undefined);
  if (platforms.length === 0) return;
  for (const module of components) {
    if (!module.foundBy.includes('uefi-modules')) continue;
    const primary = module.paths[0];
    // The platform built into this module; with one release in the image, every module of the image.
    const platform = platforms.find((p) => p.paths.includes(primary)) ?? (platforms.length === 1 ? platforms[0] : undefined);
    if (!platform) continue;
    module.dependsOn = [...new Set([...(module.dependsOn ?? []), platform.ref])].sort();
    module.evidence.push({ path: primary, method: 'uefi-platform-release', match: `${platform.name} ${platform.version} (${platform.cpe})` });
  }
}
