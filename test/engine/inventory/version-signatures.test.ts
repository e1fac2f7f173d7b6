import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileIndex } from '../../../src/engine/file-index.js';
import { CHUNK_SIZE, createFileView } from '../../../src/engine/inventory/file-view.js';
import type { Candidate, FileView, IdentifierContext } from '../../../src/engine/inventory/identifier.js';
import { libraryName } from '../../../src/engine/inventory/library-names.js';
import { checkedProductSignatures } from '../../../src/engine/inventory/signatures/checked-products.js';
import { signatures } from '../../../src/engine/inventory/signatures/index.js';
import { versionSignatureIdentifier } from '../../../src/engine/inventory/version-signatures.identifier.js';
import type { FileNode } from '../../../src/engine/types.js';
import { DEBIAN_BOOKWORM_DECOYS, DEBIAN_BOOKWORM_SAMPLES } from './samples/debian-bookworm.js';
import { DEBIAN_FORM_SAMPLES, DECOYS, SAMPLES } from './signature-samples.js';

const POSITIVES = [...SAMPLES, ...DEBIAN_FORM_SAMPLES, ...DEBIAN_BOOKWORM_SAMPLES];
/** Families whose builds keep no version string at all, found by their library's file name only (family → a real name). */
const BY_LIBRARY_NAME_ONLY = new Map([['bearssl', 'libbearssl.so.0.6']]);

/** Sample bytes inside ELF-like binary padding, as a file view. */
function viewOf(text: string, file = 'sample.bin', firmware = false): FileView {
  const pad = Buffer.alloc(700, 0);
  for (let i = 0; i < pad.length; i += 7) pad[i] = (i * 31) & 0xff;
  // BIOS-vendor families count only outside ELF programs: their samples sit in a firmware-like blob.
  const data = Buffer.concat([Buffer.from(firmware ? '_FVH\x01\x01\x01' : '\x7fELF\x01\x01\x01', 'latin1'), pad, Buffer.from(text, 'latin1'), pad]);
  const node: FileNode = { path: `root/${file}`, fsPath: `/usr/bin/${file}`, kind: 'file', size: data.length, type: 'elf', depth: 1 };
  return { node, head: async () => data.subarray(0, 4096), text: async () => data.toString('utf8'), async *chunks() { yield { offset: 0, data }; } };
}

const ctx = (): IdentifierContext => ({ index: new FileIndex('/nonexistent', []), binaries: new Map(), containers: new Set(), note: () => {} });

async function identify(text: string, file?: string, firmware = false): Promise<Candidate[]> {
  return versionSignatureIdentifier.identify(viewOf(text, file, firmware), ctx());
}

describe('version-signature table', () => {
  it('covers at least 300 component families with unique ids (issue #14)', () => {
    const ids = signatures.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(300);
  });

  it('never uses a wildcard or empty CPE vendor/product', () => {
    for (const s of signatures) {
      if (!s.cpe) continue;
      expect(s.cpe.vendor, s.id).toMatch(/^[a-z0-9][a-z0-9_.+-]*$/);
      expect(s.cpe.product, s.id).toMatch(/^[a-z0-9][a-z0-9_.+-]*$/);
    }
  });

  it('has a positive sample for every family (a new family without one fails here)', () => {
    const sampled = new Set(POSITIVES.map((s) => s.family));
    expect(signatures.map((s) => s.id).filter((id) => !sampled.has(id) && !BY_LIBRARY_NAME_ONLY.has(id))).toEqual([]);
  });

  it('finds the families that keep no string by their library names (binary-identifiers.test.ts has their samples)', () => {
    for (const [id, file] of BY_LIBRARY_NAME_ONLY) {
      expect(signatures.find((s) => s.id === id)?.patterns, id).toEqual([]);
      expect(libraryName(file)?.family, file).toBe(id);
    }
  });
});

describe('version-signature positives', () => {
  it.each(POSITIVES.map((s) => [`${s.family} ${s.version ?? '(presence)'}${s.origin ? ' [corpus]' : ''}${s.source ? ` [${s.source.split(',')[0]}]` : ''}`, s] as const))('%s', async (_label, sample) => {
    const found = await identify(sample.text, sample.file, signatures.find((s) => s.id === sample.family)?.firmwareOnly);
    const hit = found.find((c) => c.key === sample.family);
    expect(hit, JSON.stringify(found.map((c) => `${c.key}@${c.version}`))).toBeDefined();
    expect(hit!.version).toBe(sample.version);
    expect(hit!.evidence.method).toBe('version-signature');
    expect(hit!.evidence.match).toBeTruthy();
    if (sample.version) {
      const family = signatures.find((s) => s.id === sample.family)!;
      if (family.cpe) expect(hit!.cpe).toMatch(new RegExp(`^cpe:2\\.3:[aoh]:${family.cpe.vendor.replace(/[.+]/g, '\\$&')}:${family.cpe.product.replace(/[.+]/g, '\\$&')}:`));
      expect(hit!.purl).toMatch(/^pkg:generic\//);
    } else {
      expect(hit!.cpe).toBeUndefined();
    }
  });

  it('shows UTF-16 evidence as text', async () => {
    const [hit] = await identify('\0\0A\0m\0e\0r\0i\0c\0a\0n\0 \0M\0e\0g\0a\0t\0r\0e\0n\0d\0s\0\0\0', undefined, true);
    expect(hit.key).toBe('ami-aptio');
    expect(hit.evidence.match).toBe('American Megatrends');
  });

  it('names the marker of the standalone form the file holds (SeaVGABIOS, the second of SeaBIOS)', async () => {
    const [hit] = await identify('\0Start SeaVGABIOS (version %s)\n\0' + '\0'.repeat(32) + '\x001.16.2-debian-1.16.2-1\0', 'vgabios-stdvga.bin', true);
    expect(hit).toMatchObject({ key: 'seabios', version: '1.16.2' });
    expect(hit.evidence.match).toBe("1.16.2-debian-1.16.2-1 (bare version string; marker 'SeaVGABIOS (version %s)')");
  });

  it('records the file offset of the match', async () => {
    const [hit] = await identify('\0BusyBox v1.31.0 (2019-06-10 15:54:51 CEST)\0');
    expect(hit.evidence.offset).toBe(7 + 700 + 1);
  });
});

describe('version-signature decoys', () => {
  it.each([...DECOYS, ...DEBIAN_BOOKWORM_DECOYS].map((d) => [d.why, d] as const))('%s', async (_why, decoy) => {
    expect(await identify(decoy.text, decoy.file)).toEqual([]);
  });

  it('the checked-product families (issue #14) fire on no other family\'s sample', async () => {
    const own = new Set(checkedProductSignatures.map((s) => s.id));
    const stray: string[] = [];
    for (const sample of POSITIVES) {
      const found = await identify(sample.text, sample.file, signatures.find((s) => s.id === sample.family)?.firmwareOnly);
      for (const c of found) if (own.has(c.key) && c.key !== sample.family) stray.push(`${c.key} on ${sample.family} (${sample.source ?? sample.text.slice(0, 40)})`);
    }
    expect(stray).toEqual([]);
  });

  it('does not report libjpeg when libjpeg-turbo is in the same file', async () => {
    const found = await identify('\0libjpeg-turbo version 2.0.4 (build 20200507)\0\x008d  15-Jan-2012\0Copyright (C) 1991-2020 The libjpeg-turbo Project and many others\0\x008d  15-Jan-2012\0Copyright (C) 2012, Thomas G. Lane, Guido Vollbeding\0');
    expect(found.map((c) => c.key)).toEqual(['libjpeg-turbo']);
  });

  it('gives OpenSBI no version when two calls pass its banner with different integers', async () => {
    const sample = DEBIAN_BOOKWORM_SAMPLES.find((s) => s.family === 'opensbi' && s.version)!;
    // The real call (li a2,1; li a1,1; auipc a0; addi a0; jal) repeated right after the real code window, with
    // li a1,2 and its displacement adjusted: a second, conflicting reading of the same banner.
    const code = Buffer.from(sample.text.slice(0, 32), 'latin1');
    const call = Buffer.from(sample.text.slice(12, 28), 'latin1');
    const other = Buffer.from(call);
    other.writeUInt16LE(0x4589, 2); // c.li a1, 2
    other.writeUInt32LE((other.readUInt32LE(8) - (20 << 20)) >>> 0, 8); // addi lo - 20: its auipc sits 20 bytes after the real one
    const text = Buffer.concat([code, other, Buffer.from(sample.text.slice(48), 'latin1')]).toString('latin1');
    const found = await identify(text, sample.file);
    expect(found.map((c) => `${c.key}@${c.version}`)).toEqual(['opensbi@undefined']);
  });

  it('does not scan text files or compressed streams', () => {
    const textNode = viewOf('').node;
    expect(versionSignatureIdentifier.selects(textNode, Buffer.from('BusyBox v1.31.0 (2019-06-10)\nplain text\n'))).toBe(false);
    expect(versionSignatureIdentifier.selects(textNode, Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0]))).toBe(false);
    expect(versionSignatureIdentifier.selects(textNode, Buffer.from('\x7fELF\x01\x01', 'latin1'))).toBe(true);
  });
});

describe('version signatures on large files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sig-large-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds a banner straddling a chunk boundary once, reading the file in bounded chunks', async () => {
    const banner = Buffer.from('\0OpenSSL 1.1.1g  21 Apr 2020\0', 'latin1');
    const data = Buffer.alloc(CHUNK_SIZE + 65536, 0x90);
    data.write('\x7fELF', 0, 'latin1');
    banner.copy(data, CHUNK_SIZE - 10);
    writeFileSync(join(dir, 'big.bin'), data);
    const index = await FileIndex.fromDirectory(dir);
    const node = index.get('big.bin')!;
    const view = createFileView(index, node, data.subarray(0, 4096));
    let chunks = 0;
    for await (const c of view.chunks()) expect(c.data.length).toBeLessThanOrEqual(CHUNK_SIZE), chunks++;
    expect(chunks).toBe(2);
    const found = await versionSignatureIdentifier.identify(view, { index, binaries: new Map(), containers: new Set(), note: () => {} });
    expect(found.map((c) => `${c.key}@${c.version}@${c.evidence.offset}`)).toEqual([`openssl@1.1.1g@${CHUNK_SIZE - 9}`]);
  });
});
