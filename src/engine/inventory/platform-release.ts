// UEFI modules belong to the platform release they were built from: a module whose own build paths name an
// EDK II release (the edk2 component lists it among its paths) depends on that edk2 component, which carries
// the release and the CPE vulnerability matching uses. The module keeps its own GUID identity.
import type { Component } from '../types.js';

const PLATFORMS = new Set(['edk2']);

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
