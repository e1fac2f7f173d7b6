// Deterministic NVD-shaped records for the benchmarks: CVE API 2.0 `cve` objects with configurations (ranges and
// exact versions), CVSS v3.1/v2 metrics, CWE and references; products follow a long-tailed (Zipf-like)
// distribution as in NVD, where a few products (the Linux kernel) have thousands of records.

/** A small, fast, seeded PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const PRODUCTS = 20_000;

/** Product 0 is the Linux kernel (an operating-system CPE), so that the kernel triage runs on its findings. */
export function productName(i: number): { vendor: string; product: string; part: 'a' | 'o' } {
  if (i === 0) return { vendor: 'linux', product: 'linux_kernel', part: 'o' };
  return { vendor: `vendor${i % 7000}`, product: `product${i}`, part: 'a' };
}

/**
 * Product index: product 0 (the Linux kernel of this catalogue) is named by 5% of criteria, as in NVD; the others
 * are log-uniform (P(i) ∝ 1/i), a long tail where most products have a handful of records.
 */
export function zipf(random: () => number, n = PRODUCTS): number {
  if (random() < 0.05) return 0;
  return Math.min(n - 1, Math.max(1, Math.floor(Math.exp(random() * Math.log(n)))));
}

const version = (random: () => number) => `${Math.floor(random() * 5)}.${Math.floor(random() * 20)}.${Math.floor(random() * 30)}`;

export function generateCve(n: number, random: () => number): Record<string, unknown> {
  const id = `CVE-${2000 + (n % 25)}-${String(100000 + n)}`;
  const cpeMatch = [];
  const criteria = 1 + Math.floor(random() * 3);
  for (let k = 0; k < criteria; k++) {
    const { vendor, product, part } = productName(zipf(random));
    if (random() < 0.7) {
      const start = version(random);
      cpeMatch.push({
        vulnerable: true, criteria: `cpe:2.3:${part}:${vendor}:${product}:*:*:*:*:*:*:*:*`,
        ...(random() < 0.5 ? { versionStartIncluding: start } : {}), versionEndExcluding: version(random),
        matchCriteriaId: `${n}-${k}`,
      });
    } else {
      cpeMatch.push({ vulnerable: true, criteria: `cpe:2.3:${part}:${vendor}:${product}:${version(random)}:*:*:*:*:*:*:*`, matchCriteriaId: `${n}-${k}` });
    }
  }
  return {
    id,
    sourceIdentifier: 'cve@mitre.org',
    published: '2020-01-01T00:00:00.000',
    lastModified: `2024-0${1 + (n % 9)}-01T00:00:00.000`,
    vulnStatus: 'Analyzed',
    descriptions: [{ lang: 'en', value: `Generated vulnerability ${n}: a buffer overflow in a parser allows remote attackers to cause a denial of service or possibly execute arbitrary code via a crafted packet. `.repeat(2) }],
    metrics: {
      cvssMetricV31: [{ source: 'nvd@nist.gov', type: 'Primary', cvssData: { version: '3.1', vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', baseScore: 9.8, baseSeverity: 'CRITICAL' } }],
      cvssMetricV2: [{ source: 'nvd@nist.gov', type: 'Primary', cvssData: { version: '2.0', vectorString: 'AV:N/AC:L/Au:N/C:P/I:P/A:P', baseScore: 7.5 } }],
    },
    weaknesses: [{ source: 'nvd@nist.gov', type: 'Primary', description: [{ lang: 'en', value: 'CWE-787' }] }],
    configurations: [{ nodes: [{ operator: 'OR', negate: false, cpeMatch }] }],
    references: Array.from({ length: 4 }, (_, k) => ({ url: `https://example.org/advisories/${n}/${k}`, source: 'cve@mitre.org', tags: ['Third Party Advisory'] })),
  };
}

/** An API 2.0 response page holding `count` generated records starting at `first`. */
export function generatePage(first: number, count: number, random: () => number): string {
  const vulnerabilities = Array.from({ length: count }, (_, i) => ({ cve: generateCve(first + i, random) }));
  return JSON.stringify({ resultsPerPage: count, startIndex: first, totalResults: count, format: 'NVD_CVE', version: '2.0', timestamp: '2024-10-01T00:00:00.000', vulnerabilities });
}
