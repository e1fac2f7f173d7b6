// The criteria-first path must be exact: version keys order like the generic scheme, a criterion the keys reject
// never matches, and a matcher on a criteria-first source finds exactly what record-by-record matching finds.
import { describe, expect, it } from 'vitest';
import { criterionMatch, criterionView, matchTarget } from '../../../src/engine/vulns/cpe-matcher.js';
import { criterionKeys, indexCriteria, keysAdmit } from '../../../src/engine/vulns/criteria-index.js';
import { VulnerabilityMatcher } from '../../../src/engine/vulns/matcher.js';
import { MemoryVulnerabilitySource } from '../../../src/engine/vulns/memory-source.js';
import { unfiltered } from '../../support/vuln-source.js';
import { versionKey } from '../../../src/engine/vulns/version-key.js';
import { genericScheme } from '../../../src/engine/vulns/version.js';
import { component, matchSummary, plainVersion, randomCriterion, randomInventory, randomRecords, rng } from './generated-criteria.js';

const sign = (n: number) => Math.sign(n) || 0;
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('version keys', () => {
  it('order plain versions exactly like the generic scheme, equal ones included', () => {
    const random = rng(7);
    for (let i = 0; i < 20_000; i++) {
      const a = plainVersion(random);
      const b = random() < 0.1 ? `${a}.0` : plainVersion(random);
      expect([a, b, cmp(versionKey(a)!, versionKey(b)!)]).toEqual([a, b, sign(genericScheme.compare(a, b)!)]);
    }
  });

  it('exist only for plain dotted numbers', () => {
    expect(versionKey('2.6.31')).toBe('1216231');
    expect(versionKey('1.2.0.0')).toBe(versionKey('1.2'));
    const long = Array.from({ length: 40 }, (_, i) => i + 1).join('.');
    for (const v of ['1.0.2k', 'r13499', 'v1.2', '5.16-rc1', '4.8-1521-gdeadbee', '1..2', '', '1.12345678901', long]) expect(versionKey(v)).toBeUndefined();
  });
});

describe('criteria index', () => {
  it('a criterion its keys reject never matches (and the keys reject most that do not)', () => {
    const random = rng(11);
    let rejected = 0;
    let notMatching = 0;
    for (let i = 0; i < 20_000; i++) {
      const c = randomCriterion(random);
      const version = plainVersion(random);
      const keys = criterionKeys(criterionView(c)!);
      const matches = criterionMatch(criterionView(c)!, matchTarget(component('acme', 'widget', version))!) !== undefined;
      const admitted = keysAdmit(keys, versionKey(version)!);
      if (matches) expect([c, version, admitted]).toEqual([c, version, true]);
      else notMatching++;
      if (!admitted) rejected++;
    }
    expect(rejected / notMatching).toBeGreaterThan(0.7);
  });

  it('indexes every parsable criterion with its place in the record', () => {
    const rows = indexCriteria({
      id: 'CVE-1', aliases: [], source: 'nvd', cwes: [], cvss: {}, references: [],
      criteria: [
        [{ criteria: 'cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*', vulnerable: true, versionEndExcluding: '2.0' }, { criteria: 'cpe:2.3:h:acme:box:-:*:*:*:*:*:*:*', vulnerable: false }],
        [{ criteria: 'not a cpe', vulnerable: true }, { criteria: 'cpe:2.3:a:acme:widget:1.0\\:1:*:*:*:*:*:*:*', vulnerable: true }],
      ],
    });
    expect(rows.map((r) => [r.configIndex, r.criterionIndex, r.vendor, r.product, r.vulnerable, r.keys.keyed])).toEqual([
      [0, 0, 'acme', 'widget', true, true], [0, 1, 'acme', 'box', false, false], [1, 1, 'acme', 'widget', true, false],
    ]);
    expect(rows[0]!.keys).toEqual({ keyed: true, low: '', high: versionKey('2') });
  });

  it('criteria-first matching finds exactly what record-by-record matching finds', async () => {
    const memory = new MemoryVulnerabilitySource();
    const random = rng(5);
    for (const record of randomRecords(random, 3000)) memory.putRecord(record);
    // the same database with the version keys out of the way: every criterion of a product is tested
    const recordsOnly = unfiltered(memory);
    const components = randomInventory(random, 40);
    const fast = await new VulnerabilityMatcher(memory).matchAll(components, []);
    const slow = await new VulnerabilityMatcher(recordsOnly).matchAll(components, []);
    expect(fast.length).toBeGreaterThan(200);
    expect(matchSummary(fast)).toEqual(matchSummary(slow));
  });
});
