// Builds small PE32+ images in tests: one section holding an import table and a VS_VERSIONINFO resource.
const align4 = (b: Buffer): Buffer => (b.length % 4 ? Buffer.concat([b, Buffer.alloc(4 - (b.length % 4))]) : b);
const utf16z = (s: string): Buffer => Buffer.from(s + '\0', 'utf16le');

function versionBlock(key: string, value: Buffer | string | undefined, children: Buffer[] = []): Buffer {
  const isText = typeof value === 'string';
  const valueBuf = value === undefined ? Buffer.alloc(0) : isText ? utf16z(value) : value;
  const head = Buffer.alloc(6);
  const body = Buffer.concat([align4(Buffer.concat([head, utf16z(key)])), align4(valueBuf), ...children.map(align4)]);
  head.writeUInt16LE(body.length, 0);
  head.writeUInt16LE(isText ? valueBuf.length / 2 : valueBuf.length, 2);
  head.writeUInt16LE(isText ? 1 : 0, 4);
  head.copy(body, 0);
  return body;
}

export function versionInfo(strings: Record<string, string>, fileVersion: [number, number, number, number]): Buffer {
  const fixed = Buffer.alloc(52);
  fixed.writeUInt32LE(0xfeef04bd, 0);
  fixed.writeUInt32LE(0x10000, 4);
  fixed.writeUInt32LE((fileVersion[0] << 16) | fileVersion[1], 8);
  fixed.writeUInt32LE((fileVersion[2] << 16) | fileVersion[3], 12);
  fixed.writeUInt32LE((fileVersion[0] << 16) | fileVersion[1], 16);
  fixed.writeUInt32LE((fileVersion[2] << 16) | fileVersion[3], 20);
  const table = versionBlock('040904b0', undefined, Object.entries(strings).map(([k, v]) => versionBlock(k, v)));
  return versionBlock('VS_VERSION_INFO', fixed, [versionBlock('StringFileInfo', undefined, [table])]);
}

export interface PeSpec {
  imports?: Record<string, string[]>;
  version?: Buffer;
}

export function buildPe(spec: PeSpec): Buffer {
  const rva = 0x1000;
  const raw = 0x400;
  const parts: Buffer[] = [];
  let used = 0;
  const place = (b: Buffer): number => {
    const at = used;
    parts.push(align4(b));
    used += align4(b).length;
    return at;
  };
  // Import directory: descriptors first (filled after the names and thunks are placed).
  const dlls = Object.entries(spec.imports ?? {});
  const descAt = place(Buffer.alloc(20 * (dlls.length + 1)));
  const descs: Array<[number, number]> = [];
  for (const [dll, fns] of dlls) {
    const nameAt = place(Buffer.from(dll + '\0', 'latin1'));
    const hints = fns.map((f) => place(Buffer.concat([Buffer.alloc(2), Buffer.from(f + '\0', 'latin1')])));
    const thunks = Buffer.alloc(8 * (fns.length + 1));
    hints.forEach((h, i) => thunks.writeBigUInt64LE(BigInt(rva + h), i * 8));
    descs.push([place(thunks), nameAt]);
  }
  let rsrcAt = 0;
  let rsrcSize = 0;
  if (spec.version) {
    // type dir (16) → name dir (1) → language dir (0x409) → data entry → data
    const dir = (id: number, target: number) => {
      const b = Buffer.alloc(24);
      b.writeUInt16LE(1, 14);
      b.writeUInt32LE(id, 16);
      b.writeUInt32LE(target >>> 0, 20);
      return b;
    };
    const tree = Buffer.concat([dir(16, 0x80000000 | 24), dir(1, 0x80000000 | 48), dir(0x409, 72), Buffer.alloc(16)]);
    rsrcAt = place(Buffer.alloc(tree.length));
    const dataAt = place(spec.version);
    tree.writeUInt32LE(rva + dataAt, 72);
    tree.writeUInt32LE(spec.version.length, 76);
    parts[parts.length - 2] = tree;
    rsrcSize = tree.length;
  }
  const section = Buffer.concat(parts);
  descs.forEach(([thunk, name], i) => {
    section.writeUInt32LE(rva + thunk, descAt + i * 20);
    section.writeUInt32LE(rva + name, descAt + i * 20 + 12);
    section.writeUInt32LE(rva + thunk, descAt + i * 20 + 16);
  });
  const headers = Buffer.alloc(raw);
  headers.write('MZ', 0, 'latin1');
  headers.writeUInt32LE(0x40, 0x3c);
  headers.write('PE\0\0', 0x40, 'latin1');
  headers.writeUInt16LE(0x8664, 0x44);
  headers.writeUInt16LE(1, 0x46);
  headers.writeUInt16LE(240, 0x54);
  headers.writeUInt16LE(0x2022, 0x56);
  const opt = 0x58;
  headers.writeUInt16LE(0x20b, opt);
  headers.writeUInt32LE(rva, opt + 16);
  headers.writeUInt16LE(10, opt + 68);
  headers.writeUInt32LE(16, opt + 108);
  if (dlls.length) {
    headers.writeUInt32LE(rva + descAt, opt + 112 + 8);
    headers.writeUInt32LE(20 * (dlls.length + 1), opt + 112 + 12);
  }
  if (spec.version) {
    headers.writeUInt32LE(rva + rsrcAt, opt + 112 + 16);
    headers.writeUInt32LE(rsrcSize, opt + 112 + 20);
  }
  const sh = opt + 240;
  headers.write('.rdata', sh, 'latin1');
  headers.writeUInt32LE(section.length, sh + 8);
  headers.writeUInt32LE(rva, sh + 12);
  headers.writeUInt32LE(section.length, sh + 16);
  headers.writeUInt32LE(raw, sh + 20);
  return Buffer.concat([headers, section]);
}
