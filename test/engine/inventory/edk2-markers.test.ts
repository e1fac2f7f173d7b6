// EDK II release markers: the search (ASCII and UTF-16LE), the evidence round trip, and the inference rule, on a
// small table written here; the shipped table on real modules is tested in corpus-images.test.ts.
import { describe, expect, it } from 'vitest';
import { Edk2MarkerSearch, inferEdk2Release, parseMarkers, utf16Text, type Edk2Marker, type Edk2MarkerTable } from '../../../src/engine/inventory/edk2-markers.js';
import { inferPlatformRelease } from '../../../src/engine/inventory/platform-release.js';
import type { Component } from '../../../src/engine/types.js';

const TABLE: Edk2MarkerTable = {
  releases: ['202205', '202208', '202211', '202302', '202305'],
  markers: [
    { text: 'System Slot Pitch: %d', since: '202211', until: '202305', utf16: true },
    { text: 'VMMBootOrder%04x', since: '202211', until: '202305', utf16: true },
    { text: 'opt/org.tianocore/IPv4Support', since: '202211', until: '202305', utf16: false },
    { text: 'IPMISpecificationRevision: %d.%d', since: '202302', until: '202305', utf16: true },
    { text: 'Old "quoted" \\ format %a', since: '202205', until: '202208', utf16: false },
  ],
};
const utf16 = (s: string) => Buffer.from(s, 'utf16le');

describe('utf16Text', () => {
  it('keeps runs of four or more UTF-16LE characters at either alignment, each ended by a NUL', () => {
    const data = Buffer.concat([Buffer.from([0x90]), utf16('Hello'), Buffer.from([0xff, 0xfe]), utf16('abc'), Buffer.from([0x00, 0x01]), utf16('World!')]);
    expect(utf16Text(data).toString('latin1')).toBe('Hello\0World!\0');
    expect(utf16Text(Buffer.from('plain ascii text')).length).toBe(0);
  });
});

describe('Edk2MarkerSearch', () => {
  const search = new Edk2MarkerSearch(TABLE);

  it('finds markers stored as ASCII and as UTF-16LE', () => {
    const found = new Set<Edk2Marker>();
    search.find(Buffer.concat([Buffer.from('\0opt/org.tianocore/IPv4Support\0'), utf16('System Slot Pitch: %d\0'), Buffer.from([0, 0x13])]), found);
    expect([...found].map((m) => m.text).sort()).toEqual(['System Slot Pitch: %d', 'opt/org.tianocore/IPv4Support']);
  });

  it('finds every marker that starts at one position, a shorter one inside a longer one too', () => {
    const nested = new Edk2MarkerSearch({ releases: TABLE.releases, markers: [
      { text: 'Boot option %d of %d', since: '202211', until: '202305', utf16: false },
      { text: 'Boot option %d of %d failed', since: '202302', until: '202305', utf16: false },
    ] });
    const found = new Set<Edk2Marker>();
    nested.find(Buffer.from('\0Boot option %d of %d failed\0'), found);
    expect([...found].map((m) => m.text).sort()).toEqual(['Boot option %d of %d', 'Boot option %d of %d failed']);
  });

  it('writes each marker as evidence that parses back to its bounds, an open bound where the table ends', () => {
    const [slot, , , , old] = TABLE.markers;
    expect(search.evidence([slot!])).toBe('202211.. "System Slot Pitch: %d"');
    expect(search.evidence([old!])).toBe('..202208 "Old \\"quoted\\" \\\\ format %a"');
    expect(parseMarkers(search.evidence([old!, slot!]))).toEqual([
      { since: '202211', text: 'System Slot Pitch: %d' },
      { until: '202208', text: 'Old "quoted" \\ format %a' },
    ]);
  });
});

describe('inferEdk2Release', () => {
  it('takes the newest release two distinct markers reach: one marker of a later release alone is not enough', () => {
    const inferred = inferEdk2Release([
      { since: '202211', text: 'a' }, { since: '202211', text: 'b' }, { since: '202302', text: 'c' }, { since: '202211', text: 'a' },
    ]);
    expect(inferred?.release).toBe('202211');
    expect(inferred?.reason).toMatch(/^edk2-stable202211 or later: 3 strings .*no marker of a later release found$/);
    expect(inferEdk2Release([{ since: '202302', text: 'c' }, { since: '202302', text: 'd' }])?.release).toBe('202302');
  });

  it('gives nothing from one marker, or when two markers that ended earlier contradict the lower bound', () => {
    const lower = [{ since: '202211', text: 'a' }, { since: '202211', text: 'b' }];
    expect(inferEdk2Release([{ since: '202211', text: 'a' }, { since: '202211', text: 'a' }])).toBeUndefined();
    expect(inferEdk2Release([...lower, { until: '202208', text: 'old' }, { until: '202205', text: 'older' }])).toBeUndefined();
    // one string that the source dropped earlier is not enough to contradict (a vendor may have kept it)
    expect(inferEdk2Release([...lower, { until: '202208', text: 'old' }])?.release).toBe('202211');
    const bracketed = inferEdk2Release([...lower, { until: '202211', text: 'last' }, { until: '202302', text: 'later' }]);
    expect(bracketed).toMatchObject({ release: '202211', reason: expect.stringContaining('no later than edk2-stable202302 ("later" was last in it)') });
  });
});

describe('inferPlatformRelease', () => {
  const component = (over: Partial<Component>): Component => ({ ref: 'x@', name: 'x', type: 'firmware', confidence: 0.5, paths: [], evidence: [], foundBy: [], ...over });
  const edk2 = () => component({
    ref: 'edk2@', name: 'edk2', paths: ['fv/BdsDxe.efi', 'fv/Shell.efi'], foundBy: ['edk2-markers'],
    evidence: [
      { path: 'fv/Shell.efi', method: 'edk2-release-markers', match: '202302.. "IPMI"; 202211.. "Slot"' },
      { path: 'fv/BdsDxe.efi', method: 'edk2-release-markers', match: '202211.. "VMMBootOrder%04x"' },
    ],
  });

  it('gives an unversioned edk2 component the inferred release, its CPE and purl, and renames its ref everywhere', () => {
    const platform = edk2();
    const other = component({ ref: 'tool@', dependsOn: ['edk2@'] });
    inferPlatformRelease([platform, other]);
    expect(platform).toMatchObject({ version: '202211', ref: 'edk2@202211', cpe: 'cpe:2.3:a:tianocore:edk2:202211:*:*:*:*:*:*:*', purl: 'pkg:generic/edk2@202211' });
    expect(platform.evidence.at(-1)).toMatchObject({ method: 'edk2-release-inferred', match: expect.stringMatching(/^edk2-stable202211 or later: 3 strings/) });
    expect(other.dependsOn).toEqual(['edk2@202211']);
  });

  it('leaves the release to build paths when another edk2 component has one', () => {
    const platform = edk2();
    inferPlatformRelease([platform, component({ ref: 'edk2@202302', name: 'edk2', version: '202302' })]);
    expect(platform.version).toBeUndefined();
  });
});
