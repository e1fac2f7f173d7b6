// Flattened device tree (devicetree specification v0.4, chapter 5): a big-endian header, a memory reservation
// block, a structure block of tokens (begin node, property, end node, nop, end) and a strings block. Parsed
// into a tree whose property values are views into the blob, with their offsets for streamed extraction.
import { FormatError } from '../../../format-error.js';
import type { Reader } from '../../handler.js';
import { struct } from '../../struct.js';

export const FDT_MAGIC = Buffer.from('d00dfeed', 'hex');
export const FdtHeader = struct('be', {
  magic: 'u32', totalSize: 'u32', offStruct: 'u32', offStrings: 'u32', offMemRsv: 'u32', version: 'u32',
  lastCompVersion: 'u32', bootCpuid: 'u32', sizeStrings: 'u32', sizeStruct: 'u32',
});
const MAX_FDT = 64 * 1024 * 1024;
const MAX_DEPTH = 64;

export interface FdtProp {
  value: Buffer;
  /** Offset of the value from the start of the blob. */
  offset: number;
}

export interface FdtNode {
  name: string;
  props: Map<string, FdtProp>;
  children: FdtNode[];
}

/** Reads and checks the header; null when the fields cannot describe a device tree (a quiet false positive). */
export async function readFdtHeader(reader: Reader, start: number): Promise<ReturnType<typeof FdtHeader.parse> | null> {
  const raw = await reader.read(start, FdtHeader.size);
  if (raw.length < FdtHeader.size) return null;
  const h = FdtHeader.parse(raw);
  if (h.version < 16 || h.version > 17 || h.lastCompVersion > 17 || h.totalSize < FdtHeader.size) return null;
  const inside = (offset: number, size = 0) => offset >= FdtHeader.size - 8 && offset + size <= h.totalSize;
  if (!inside(h.offStruct, h.version >= 17 ? h.sizeStruct : 0) || !inside(h.offStrings, h.sizeStrings) || !inside(h.offMemRsv)) return null;
  if (h.totalSize > MAX_FDT) throw new FormatError(`device tree: ${h.totalSize} bytes is larger than the ${MAX_FDT}-byte limit`);
  if (start + h.totalSize > reader.size) throw new FormatError(`device tree: truncated, ${h.totalSize} bytes declared, file ends at ${reader.size}`);
  return h;
}

/** Parses the structure block of a whole blob into its root node. */
export function parseFdt(blob: Buffer): FdtNode {
  const h = FdtHeader.parse(blob);
  const stringsEnd = h.offStrings + h.sizeStrings;
  const structEnd = h.version >= 17 ? h.offStruct + h.sizeStruct : h.offStrings > h.offStruct ? h.offStrings : blob.length;
  let at = h.offStruct;
  const u32 = () => {
    if (at + 4 > structEnd) throw new FormatError('device tree: structure block ends inside a token');
    const v = blob.readUInt32BE(at);
    at += 4;
    return v;
  };
  const cString = (from: number, limit: number) => {
    const nul = blob.indexOf(0, from);
    if (nul === -1 || nul >= limit) throw new FormatError('device tree: unterminated name');
    return blob.toString('latin1', from, nul);
  };
  const stack: FdtNode[] = [];
  let root: FdtNode | undefined;
  while (true) {
    const token = u32();
    if (token === 1) {
      const name = cString(at, structEnd);
      at += Math.ceil((name.length + 1) / 4) * 4;
      const node: FdtNode = { name, props: new Map(), children: [] };
      if (stack.length) stack.at(-1)!.children.push(node);
      else if (root) throw new FormatError('device tree: more than one root node');
      else root = node;
      if (stack.push(node) > MAX_DEPTH) throw new FormatError('device tree: nodes nested too deep');
    } else if (token === 3) {
      const length = u32();
      const nameOffset = u32();
      if (!stack.length) throw new FormatError('device tree: property outside a node');
      if (at + length > structEnd || h.offStrings + nameOffset >= stringsEnd) throw new FormatError('device tree: property out of range');
      stack.at(-1)!.props.set(cString(h.offStrings + nameOffset, stringsEnd), { value: blob.subarray(at, at + length), offset: at });
      at += Math.ceil(length / 4) * 4;
    } else if (token === 2) {
      if (!stack.pop()) throw new FormatError('device tree: unbalanced end of node');
    } else if (token === 9) {
      if (stack.length || !root) throw new FormatError('device tree: ends inside a node');
      return root;
    } else if (token !== 4) {
      throw new FormatError(`device tree: unknown token 0x${token.toString(16)} at ${at - 4}`);
    }
  }
}

/** A property as text when it is one or more printable NUL-terminated strings. */
export function propStrings(value: Buffer): string[] | undefined {
  if (value.length === 0 || value[value.length - 1] !== 0) return undefined;
  const parts = value.subarray(0, -1).toString('latin1').split('\0');
  return parts.every((p) => p.length > 0 && /^[\x20-\x7e]+$/.test(p)) ? parts : undefined;
}

export const propString = (node: FdtNode | undefined, name: string) => {
  const p = node?.props.get(name);
  return p ? propStrings(p.value)?.[0] : undefined;
};

export function propU32(node: FdtNode | undefined, name: string): number | undefined {
  const v = node?.props.get(name)?.value;
  if (!v || (v.length !== 4 && v.length !== 8)) return undefined;
  return v.length === 4 ? v.readUInt32BE(0) : Number(v.readBigUInt64BE(0));
}

/** Device tree source text of a node, as dtc would print it (values as strings, cells or bytes). */
export function toDts(node: FdtNode, indent = ''): string {
  const lines = [`${indent}${node.name || '/'} {`];
  for (const [name, { value }] of node.props) {
    const strings = propStrings(value);
    if (value.length === 0) lines.push(`${indent}\t${name};`);
    else if (strings) lines.push(`${indent}\t${name} = ${strings.map((s) => JSON.stringify(s)).join(', ')};`);
    else if (value.length % 4 === 0 && value.length <= 1024) {
      const cells = Array.from({ length: value.length / 4 }, (_, i) => `0x${value.readUInt32BE(i * 4).toString(16)}`);
      lines.push(`${indent}\t${name} = <${cells.join(' ')}>;`);
    } else if (value.length <= 1024) lines.push(`${indent}\t${name} = [${value.toString('hex').replace(/(..)(?!$)/g, '$1 ')}];`);
    else lines.push(`${indent}\t/* ${name}: ${value.length} bytes of data */`);
  }
  for (const child of node.children) lines.push(toDts(child, `${indent}\t`));
  lines.push(`${indent}};`);
  return lines.join('\n');
}
