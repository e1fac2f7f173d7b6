import { describe, expect, it } from 'vitest';
import { mergeCandidates, refiningVersion, type StampedCandidate } from '../../../src/engine/inventory/merge.js';

function cand(over: Partial<StampedCandidate> & Pick<StampedCandidate, 'key' | 'path'>): StampedCandidate {
  return {
    name: over.key,
    type: 'application',
    confidence: 0.9,
    primaryFile: true,
    foundBy: 'version-signatures',
    evidence: { path: over.path, method: 'version-signature', match: 'x' },
    ...over,
  };
}

describe('mergeCandidates', () => {
  it('keeps the better-supported version when one file shows two, and reports the conflict', () => {
    const { components, problems } = mergeCandidates([
      cand({ key: 'nmap', path: 'nmap.exe', version: '6.47', confidence: 0.9 }),
      cand({ key: 'nmap', path: 'nmap.exe', version: '6.02', confidence: 0.7, foundBy: 'pe-version', evidence: { path: 'nmap.exe', method: 'pe-version-resource' } }),
    ]);
    expect(components.map((c) => c.ref)).toEqual(['nmap@6.47']);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ kind: 'warning', path: 'nmap.exe', source: 'pe-version' });
  });

  it('reports a family without a version when equally strong evidence disagrees', () => {
    const { components, problems } = mergeCandidates([
      cand({ key: 'libgcc', path: 'lib/libgcc_s.so.1', version: '3.3.2', confidence: 0.7, cpe: 'cpe:2.3:a:gnu:gcc:3.3.2:*:*:*:*:*:*:*' }),
      cand({ key: 'libgcc', path: 'lib/libgcc_s.so.1', version: '4.3.3', confidence: 0.7, cpe: 'cpe:2.3:a:gnu:gcc:4.3.3:*:*:*:*:*:*:*' }),
    ]);
    expect(components).toHaveLength(1);
    expect(components[0].version).toBeUndefined();
    expect(components[0].cpe).toBeUndefined();
    expect(problems).toHaveLength(2);
  });

  it('keeps the most specific of equally supported versions when it refines the others (sshd: 9.2 and 9.2p1), with no warning', () => {
    const { components, problems } = mergeCandidates([
      cand({ key: 'openssh', path: 'usr/sbin/sshd', version: '9.2' }),
      cand({ key: 'openssh', path: 'usr/sbin/sshd', version: '9.2p1' }),
    ]);
    expect(components.map((c) => c.version)).toEqual(['9.2p1']);
    // the same release, less precisely: Debian's sshd shows both, which is no conflict to report
    expect(problems).toEqual([]);
    // a weaker coarser form is dropped quietly too; a weaker other version is still a conflict
    expect(mergeCandidates([
      cand({ key: 'openssh', path: 'usr/sbin/sshd', version: '9.2p1' }),
      cand({ key: 'openssh', path: 'usr/sbin/sshd', version: '9.2', confidence: 0.6 }),
      cand({ key: 'openssh', path: 'usr/sbin/sshd', version: '8.4p1', confidence: 0.6 }),
    ]).problems.map((p) => p.message)).toEqual(['openssh: version 8.4p1 (version-signature) conflicts with 9.2p1 (confidence 0.9); kept 9.2p1']);
    expect(refiningVersion(['9.2', '9.2.1'])).toBe('9.2.1');
    expect(refiningVersion(['9.2', '9.20'])).toBeUndefined();
    expect(refiningVersion(['9.2p1', '9.2p2'])).toBeUndefined();
    expect(refiningVersion(['1.0', '2.0.1'])).toBeUndefined();
  });

  it('joins the same family and version across files and unions paths, evidence and identifiers', () => {
    const { components, links } = mergeCandidates([
      cand({ key: 'openssl', path: 'a/ncat', version: '1.0.2c' }),
      cand({ key: 'openssl', path: 'b/nmap', version: '1.0.2c', foundBy: 'other' }),
      cand({ key: 'openssl', path: 'c/old', version: '0.9.8g' }),
    ]);
    expect(components.map((c) => `${c.ref}:${c.paths.join(',')}`).sort()).toEqual(['openssl@0.9.8g:c/old', 'openssl@1.0.2c:a/ncat,b/nmap']);
    const joined = components.find((c) => c.version === '1.0.2c')!;
    expect(joined.foundBy).toEqual(['version-signatures', 'other']);
    expect(joined.confidence).toBe(0.95);
    expect(links.get(joined.ref)!.primaryPaths).toEqual(['a/ncat', 'b/nmap']);
  });

  it('merges a database record with the binary at the same upstream version, keeping package identity', () => {
    const { components } = mergeCandidates([
      cand({ key: 'dropbear', path: 'usr/sbin/dropbear', version: '2019.78', cpe: 'cpe:2.3:a:dropbear_ssh_project:dropbear_ssh:2019.78:*:*:*:*:*:*:*', purl: 'pkg:generic/dropbear@2019.78' }),
      cand({ key: 'dropbear', path: 'usr/lib/opkg/status', primaryFile: false, name: 'dropbear', version: '2019.78-5', matchVersion: '2019.78', purl: 'pkg:openwrt/dropbear@2019.78-5', files: ['usr/sbin/dropbear'], foundBy: 'opkg-status' }),
    ]);
    expect(components).toHaveLength(1);
    expect(components[0]).toMatchObject({ version: '2019.78-5', purl: 'pkg:openwrt/dropbear@2019.78-5', cpe: 'cpe:2.3:a:dropbear_ssh_project:dropbear_ssh:2019.78:*:*:*:*:*:*:*' });
  });

  it('keeps two database packages of one family apart', () => {
    const { components } = mergeCandidates([
      cand({ key: 'ubus', path: 'status', primaryFile: false, name: 'ubus', version: '2020-02-05-1' }),
      cand({ key: 'ubus', path: 'status', primaryFile: false, name: 'ubusd', version: '2020-02-05-1' }),
    ]);
    expect(components.map((c) => c.name).sort()).toEqual(['ubus', 'ubusd']);
  });

  it('attaches a versionless sighting to the versioned component owning its file, else to the only version, else keeps it apart', () => {
    const owned = mergeCandidates([
      cand({ key: 'openssl', path: 'lib/libcrypto.so.1.1', version: '1.1.1g' }),
      cand({ key: 'openssl', path: 'lib/libcrypto.so.1.1', foundBy: 'elf-metadata' }),
      cand({ key: 'openssl', path: 'lib/libssl.so.1.1', foundBy: 'elf-metadata' }),
    ]);
    expect(owned.components.map((c) => c.ref)).toEqual(['openssl@1.1.1g']);
    expect(owned.components[0].paths).toEqual(['lib/libcrypto.so.1.1', 'lib/libssl.so.1.1']);
    const apart = mergeCandidates([
      cand({ key: 'zlib', path: 'a', version: '1.2.3' }),
      cand({ key: 'zlib', path: 'b', version: '1.2.11' }),
      cand({ key: 'zlib', path: 'c' }),
    ]);
    expect(apart.components.map((c) => c.ref).sort()).toEqual(['zlib@', 'zlib@1.2.11', 'zlib@1.2.3']);
  });

  it('makes refs unique', () => {
    const { components } = mergeCandidates([
      cand({ key: 'a', name: 'same', path: 'x', version: '1' }),
      cand({ key: 'b', name: 'same', path: 'y', version: '1' }),
    ]);
    expect(components.map((c) => c.ref).sort()).toEqual(['same@1', 'same@1#2']);
  });
});
