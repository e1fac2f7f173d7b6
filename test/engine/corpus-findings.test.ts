// Every image in ../shared/corpus through the real engine (scan() with the registered analyzers and, when
// ../shared/vulndata is present, the 44-record NVD corpus as vulnerability source): no two findings share a
// fingerprint, and weak algorithms found only in code are crypto assets, not findings. The TRENDnet rootfs
// once reported "Broken algorithm DES in libcrypto.so.0.9.8" twice with one fingerprint and two severities
// (its DES and DES-CBC assets each made one).
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { scan } from '../../src/engine/scan.js';
import type { ScanResult } from '../../src/engine/types.js';
import { readFeeds } from '../../src/engine/vulns/feed-reader.js';
import { MemoryVulnerabilitySource } from '../../src/engine/vulns/memory-source.js';
import { corpus, haveShared, sharedPath } from '../support/shared.js';

const images = haveShared('corpus') ? readdirSync(sharedPath('corpus')).filter((name) => !name.endsWith('.md')).sort() : [];
const withVulns = images.length > 0 && haveShared('vulndata', 'nvd-corpus');
let vulnerabilities: MemoryVulnerabilitySource | undefined;

beforeAll(async () => {
  if (!withVulns) return;
  vulnerabilities = new MemoryVulnerabilitySource();
  for await (const item of readFeeds([sharedPath('vulndata', 'nvd-corpus')])) {
    if (item.kind === 'error') throw new Error(`${item.file}: ${item.message}`);
    vulnerabilities.apply(item);
  }
});

async function scanned(name: string): Promise<ScanResult> {
  const workDir = await mkdtemp(join(tmpdir(), 'firmscope-findings-'));
  try {
    return await scan(corpus(name), { workDir, vulnerabilities });
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Fingerprints held by more than one finding, with what each of them says. */
function sharedFingerprints(result: ScanResult): Record<string, string[]> {
  const byFingerprint = new Map<string, string[]>();
  for (const f of result.findings) byFingerprint.set(f.fingerprint, [...(byFingerprint.get(f.fingerprint) ?? []), `${f.severity} ${f.name}`]);
  return Object.fromEntries([...byFingerprint].filter(([, list]) => list.length > 1));
}

const algorithmNames = (r: ScanResult) => r.cryptoAssets.filter((a) => a.assetType === 'algorithm').map((a) => a.details.algorithm as string);

/** What some images must also show, beyond the invariant every image gets. */
const expectations: Record<string, (result: ScanResult) => void> = {
  'trendnet-tew733gr-rootfs.squashfs': (result) => {
    // OpenSSL 0.9.8g, uClibc's libcrypt and hostapd carry DES, 3DES and RC4 code, but no configuration enables them.
    expect(algorithmNames(result)).toEqual(expect.arrayContaining(['DES', '3DES', 'RC4']));
    expect(result.findings.filter((f) => f.pname.startsWith('broken-algorithm-'))).toEqual([]);
    expect(result.findings.filter((f) => f.pname === 'private-key-in-image')).toHaveLength(3);
  },
  'nmap.exe': (result) => {
    expect(algorithmNames(result)).toEqual(expect.arrayContaining(['DES', 'RC4']));
    expect(result.findings.filter((f) => f.pname.startsWith('broken-algorithm-'))).toEqual([]);
  },
  'ssl.key': (result) => {
    expect(result.findings.map((f) => f.pname).sort()).toEqual(['private-key-in-image', 'weak-key-size']);
  },
};

describe.runIf(images.length > 0)('findings of every corpus image through scan()', () => {
  for (const name of images) {
    it(`${name}: one finding per fingerprint`, async () => {
      const result = await scanned(name);
      expect(sharedFingerprints(result)).toEqual({});
      expectations[name]?.(result);
    }, 180_000);
  }
});
