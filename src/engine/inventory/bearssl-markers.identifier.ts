// BearSSL linked into a program or a firmware blob (issue #14). BearSSL keeps no version string and has no version
// API, so a static build is found by constant tables of its own: data blocks that its T0 compiler generates from the
// handshake and X.509 sources (ssl_hs_common.t0, asn1.t0). They are byte arrays, the same on every architecture, and
// the spans below are the same in every upstream revision from the first import (2016-11-02, before 0.1) to 2024-06
// (3c04036) and in the ESP8266 Arduino fork (earlephilhower/bearssl-esp8266): they prove presence, never a release.
// Any one table is enough: a TLS client or server carries the cipher-suite table, X.509 validation and decoding the
// other two. The shared library's file name (libbearssl.so.0.6, library-names.ts) still gives the version; both
// are key 'bearssl', so on one file they merge into one component (merge.ts).
import type { Candidate, FileView, Identifier, IdentifierContext } from './identifier.js';
import { familyById } from './package-families.js';
import { ARCHIVES, candidateFromHit, headType, versionSignatureIdentifier } from './version-signatures.identifier.js';

export interface BearSslMarker {
  /** The table's name in BearSSL's source. */
  name: string;
  /** Where it comes from, for the evidence. */
  source: string;
  bytes: Buffer;
}

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

export const BEARSSL_MARKERS: readonly BearSslMarker[] = [
  {
    // Pairs of 16-bit words: a TLS cipher-suite id and BearSSL's own encoding of its algorithms (key exchange,
    // cipher, MAC, PRF, four bits each), from (000)A/0024 to C00F/3224 and C0(12). In ssl_hs_client.c and
    // ssl_hs_server.c. The markers start on a byte other than 00: Buffer.indexOf then crosses zero padding faster.
    name: 'cipher-suite-def',
    source: 'ssl_hs_common.t0',
    bytes: hex('0a0024 002f0124 00350224 003c0144 003d0244 009c0304 009d0405 c0034024 c0044124 c0054224 c0082024 c0092124 c00a2224 c00d3024 c00e3124 c00f3224 c0'),
  },
  {
    // Two 12-entry tables of 16-bit words (common and leap years): days before the month << 5 | days in the month
    // (from the first table's second byte). In x509_minimal.c and x509_decoder.c.
    name: 'month-to-days',
    source: 'asn1.t0',
    bytes: hex('1f03fc077f0b5e0f1f12fe16bf1a9f1e7e223f261e29df 001f03fd079f0b7e0f3f131e16df1abf1e9e225f263e29ff'),
  },
  {
    // The OIDs of rsaEncryption and sha1/224/256/384/512WithRSAEncryption, each after its length byte (no DER tag),
    // in asn1.t0's order. In x509_minimal.c and x509_decoder.c.
    name: 'rsa-oids',
    source: 'asn1.t0',
    bytes: hex('092a864886f70d010101 092a864886f70d010105 092a864886f70d01010e 092a864886f70d01010b 092a864886f70d01010c 092a864886f70d01010d'),
  },
];

/** The markers found in a file's chunks, each with its first file offset. */
export async function findBearSslMarkers(file: FileView, markers: readonly BearSslMarker[] = BEARSSL_MARKERS): Promise<Map<BearSslMarker, number>> {
  const found = new Map<BearSslMarker, number>();
  for await (const { offset, data } of file.chunks()) {
    for (const marker of markers) {
      if (found.has(marker)) continue;
      const at = data.indexOf(marker.bytes);
      if (at >= 0) found.set(marker, offset + at);
    }
    if (found.size === markers.length) break;
  }
  return found;
}

export const bearSslMarkersIdentifier: Identifier = {
  id: 'bearssl-markers',
  description: "BearSSL's constant tables (T0 data blocks) in programs and firmware that link it statically (method bearssl-markers)",
  // The files the version signatures scan: binaries and raw data, not text, media or compressed streams.
  selects: (node, head) => versionSignatureIdentifier.selects(node, head),
  perFile: true,
  async identify(file: FileView, ctx: IdentifierContext): Promise<Candidate[]> {
    // an unpacked container's content is identified in its children (as the version signatures do)
    if (ctx.containers.has(file.node.path) && ARCHIVES.has(headType(await file.head()))) return [];
    const found = await findBearSslMarkers(file);
    const family = familyById('bearssl');
    if (found.size === 0 || !family) return [];
    const list = [...found].sort((a, b) => a[1] - b[1]);
    const match = `BearSSL tables ${list.map(([m, at]) => `${m.name} (${m.source}, ${m.bytes.length} bytes) at 0x${at.toString(16)}`).join(', ')}; in every release, no version`;
    const candidate = candidateFromHit(family, { version: undefined, match, offset: list[0]![1], confidence: 0.8 }, file.node);
    candidate.evidence = { path: file.node.path, method: 'bearssl-markers', match, offset: list[0]![1] };
    return [candidate];
  },
};
