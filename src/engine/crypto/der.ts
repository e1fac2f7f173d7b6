// A minimal DER walker for what the crypto detectors need: header and length of an element, its children,
// OIDs. Definite lengths only (DER); anything else is not DER and yields undefined.

export interface DerElement {
  tag: number;
  /** Offset of the tag byte. */
  start: number;
  /** Offset of the content. */
  content: number;
  /** Offset just past the content. */
  end: number;
}

/** Reads the element header at `at`; undefined when it is not a well-formed DER header within `limit`. */
export function derElement(buf: Uint8Array, at: number, limit = buf.length): DerElement | undefined {
  if (at + 2 > limit) return undefined;
  const tag = buf[at]!;
  if ((tag & 0x1f) === 0x1f) return undefined;
  const first = buf[at + 1]!;
  let length = first;
  let content = at + 2;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count === 0 || count > 4 || at + 2 + count > limit) return undefined;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + buf[at + 2 + i]!;
    // DER uses the shortest length form.
    if (length < 0x80 || buf[at + 2] === 0) return undefined;
    content += count;
  }
  const end = content + length;
  return end <= limit ? { tag, start: at, content, end } : undefined;
}

/** Declared total size of the element at `at` (header + content), even when the buffer is shorter; 0 if none. */
export function derDeclaredSize(buf: Uint8Array, at: number): number {
  const element = derElement(buf, at, Number.MAX_SAFE_INTEGER);
  return element ? element.end - at : 0;
}

export function derChildren(buf: Uint8Array, parent: DerElement): DerElement[] {
  const out: DerElement[] = [];
  for (let at = parent.content; at < parent.end; ) {
    const child = derElement(buf, at, parent.end);
    if (!child) return [];
    out.push(child);
    at = child.end;
  }
  return out;
}

export function oidToString(bytes: Uint8Array): string {
  const parts: number[] = [];
  let value = 0;
  for (const b of bytes) {
    value = value * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      if (parts.length === 0) parts.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
      else parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

/** The OID string of an element with tag 0x06. */
export function derOid(buf: Uint8Array, element: DerElement | undefined): string | undefined {
  return element && element.tag === 0x06 ? oidToString(buf.subarray(element.content, element.end)) : undefined;
}

/** Walks a path of child indexes from the element at `at`; undefined when the path does not exist. */
export function derPath(buf: Uint8Array, at: number, ...path: number[]): DerElement | undefined {
  let element = derElement(buf, at);
  for (const index of path) {
    if (!element) return undefined;
    element = derChildren(buf, element)[index];
  }
  return element;
}
