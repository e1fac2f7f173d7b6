// Reported in every ScanResult and SBOM as the tool version.
export const ENGINE_VERSION = '0.1.0';
