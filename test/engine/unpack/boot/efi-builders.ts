// Builders of UEFI variable stores and EFI signature lists for tests (EDK II VariableFormat.h, UEFI 32.4.1),
// and a self-signed certificate made with openssl.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GUIDS, guidBytes } from '../../../../src/engine/unpack/boot/uefi/guid.js';

export function selfSignedDer(cn: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'esl-cert-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'k.pem'),
      '-subj', `/CN=${cn}`, '-days', '30', '-outform', 'DER', '-out', join(dir, 'c.der')], { stdio: 'pipe' });
    return readFileSync(join(dir, 'c.der'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function signatureList(type: string, owner: string, signatures: Buffer[]): Buffer {
  const size = 16 + signatures[0]!.length;
  const header = Buffer.alloc(28);
  guidBytes(type).copy(header, 0);
  header.writeUInt32LE(28 + size * signatures.length, 16);
  header.writeUInt32LE(0, 20);
  header.writeUInt32LE(size, 24);
  return Buffer.concat([header, ...signatures.flatMap((s) => [guidBytes(owner), s])]);
}

export interface VarSpec {
  name: string;
  guid: string;
  data: Buffer;
  state?: number;
  attributes?: number;
}

export function variableStore(vars: VarSpec[], { authenticated = true, size }: { authenticated?: boolean; size?: number } = {}): Buffer {
  const parts: Buffer[] = [];
  for (const v of vars) {
    const name = Buffer.from(`${v.name}\0`, 'utf16le');
    const header = Buffer.alloc(authenticated ? 60 : 32);
    header.writeUInt16LE(0x55aa, 0);
    header[2] = v.state ?? 0x3f;
    header.writeUInt32LE(v.attributes ?? 0x27, 4);
    let at = 8;
    if (authenticated) {
      header.writeBigUInt64LE(5n, 8);
      header.writeUInt16LE(2024, 16);
      header[18] = 2;
      header[19] = 29;
      header[20] = 12;
      at = 36;
    }
    header.writeUInt32LE(name.length, at);
    header.writeUInt32LE(v.data.length, at + 4);
    guidBytes(v.guid).copy(header, at + 8);
    const record = Buffer.concat([header, name, v.data]);
    parts.push(record, Buffer.alloc((4 - (record.length % 4)) % 4, 0xff));
  }
  const body = Buffer.concat(parts);
  const total = size ?? 28 + body.length + 64;
  const store = Buffer.alloc(total, 0xff);
  guidBytes(authenticated ? GUIDS.authVariableStore : GUIDS.variableStore).copy(store, 0);
  store.writeUInt32LE(total, 16);
  store[20] = 0x5a;
  store[21] = 0xfe;
  store.writeUInt16LE(0, 22);
  store.writeUInt32LE(0, 24);
  body.copy(store, 28);
  return store;
}
