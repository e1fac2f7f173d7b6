// The JavaScript check that turns away LZMA candidates before liblzma probes them: it only ever says "breaks" where
// liblzma breaks too, before 64 bytes are out (checked on every candidate of the corpus images and on made-up streams),
// and never for a real stream.
import { readdirSync, readFileSync } from 'node:fs';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseLzmaPropsByte } from '../../../../src/engine/unpack/codecs/blocks.js';
import { probeLzma } from '../../../../src/engine/unpack/codecs/lzma.js';
import { QUIET_BELOW } from '../../../../src/engine/unpack/compression/decode-stream.js';
import { breaksBefore } from '../../../../src/engine/unpack/compression/lzma/early-break.js';
import { parseLzmaHeaders, type LzmaHeader } from '../../../../src/engine/unpack/compression/lzma/variants.js';
import { compressibleBytes, pseudoRandom } from '../../../support/bytes.js';
import { corpus, haveShared, sharedPath } from '../../../support/shared.js';
import { compressWith } from '../handler-harness.js';

const PROBE_BYTES = 4096;

/** Whether liblzma, as the handler probes (the LZMA-alone decoder for a sized header, then raw LZMA1), gets QUIET_BELOW bytes out before it breaks. */
function liblzmaPasses(head: Buffer, header: LzmaHeader): boolean {
  const passes = ({ produced, broke }: { produced: number; broke: boolean }) => !broke || produced >= QUIET_BELOW;
  if (header.size !== undefined && passes(probeLzma({ kind: 'alone', memlimit: 16 << 20 }, head, QUIET_BELOW))) return true;
  const props = parseLzmaPropsByte(header.props, Math.min(header.dictSize, 1 << 20))!;
  return passes(probeLzma({ kind: 'raw', props }, head.subarray(header.headerSize), QUIET_BELOW));
}

/** Every LZMA header candidate in `data` (the handler's properties bytes followed by 00 00), with its head. */
function* candidates(data: Buffer): Generator<{ head: Buffer; header: LzmaHeader }> {
  for (let i = 0; i + 16 < data.length; i++) {
    if (![0x5d, 0x6d, 0x5e, 0x65].includes(data[i]!) || data[i + 1] !== 0 || data[i + 2] !== 0) continue;
    const head = data.subarray(i, i + PROBE_BYTES);
    for (const header of parseLzmaHeaders(head)) if (header.size === undefined || header.size >= QUIET_BELOW) yield { head, header };
  }
}

const breaks = (head: Buffer, header: LzmaHeader) => breaksBefore(head.subarray(header.headerSize), parseLzmaPropsByte(header.props, header.dictSize)!, QUIET_BELOW);

describe('LZMA early break', () => {
  /** Checks each candidate of `data` (up to `most`); returns how many there were and how many it turned away. */
  function compare(name: string, data: Buffer, most = Infinity): { seen: number; turnedAway: number } {
    let turnedAway = 0;
    let seen = 0;
    for (const { head, header } of candidates(data)) {
      if (++seen > most) break;
      if (!breaks(head, header)) continue;
      turnedAway++;
      expect(liblzmaPasses(head, header), `${name} at ${head.byteOffset}`).toBe(false);
    }
    return { seen, turnedAway };
  }

  it('breaks only where liblzma breaks too, on the candidates of a real program (node itself)', () => {
    const { seen, turnedAway } = compare(process.execPath, readFileSync(process.execPath), 3000);
    expect(seen).toBeGreaterThan(300);
    expect(turnedAway / seen).toBeGreaterThan(0.5); // it does turn most away
  });

  it.skipIf(!haveShared('corpus'))('breaks only where liblzma breaks too, on every candidate of the corpus images', () => {
    let seen = 0;
    for (const name of readdirSync(sharedPath('corpus'))) seen += compare(name, readFileSync(corpus(name))).seen;
    expect(seen).toBeGreaterThan(50);
  });

  it('breaks only where liblzma breaks too, behind headers of every layout, on random and other compressed bytes', () => {
    const headers = [
      Buffer.from([0x5d, 0, 0, 0x80, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
      Buffer.from([0x6d, 0, 0, 0x20, 0, 0x00, 0x40, 0x06, 0, 0, 0, 0, 0]),
      Buffer.from([0x5e, 0, 0, 0x40, 0]),
      Buffer.from([0x65, 0, 0, 0x01, 0]),
    ];
    let turnedAway = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const body = seed % 2 ? pseudoRandom(600, seed) : zlib.deflateRawSync(compressibleBytes(3000, seed));
      body[0] = 0;
      for (const header of headers) {
        const head = Buffer.concat([header, body]);
        for (const parsed of parseLzmaHeaders(head)) {
          if (!breaks(head, parsed)) continue;
          turnedAway++;
          expect(liblzmaPasses(head, parsed), `seed ${seed} header ${header.toString('hex')}`).toBe(false);
        }
      }
    }
    expect(turnedAway).toBeGreaterThan(400);
  });

  it('never breaks a real stream, nor one cut short', () => {
    for (let seed = 1; seed <= 6; seed++) {
      const alone = compressWith('lzma', ['-c'], compressibleBytes(20_000, seed));
      for (const head of [alone, alone.subarray(0, 40)]) {
        const [header] = parseLzmaHeaders(head);
        expect(breaks(head, header!)).toBe(false);
      }
    }
  });
});
