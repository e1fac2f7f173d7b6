// What the call-site decoders share: code as (bytes, address) regions, the call targets to look for and the
// callback that receives each call. A target is an id (an index into the caller's list of interesting
// functions); it is reached either directly (an address: a PLT stub, a jump thunk, a statically linked
// function) or through a pointer slot (a GOT or IAT entry loaded and called indirectly).
//
// The decoders are linear sweeps over the executable bytes that only look at call instructions whose
// destination is exactly a known target, so a misaligned or data byte sequence counts only if it happens to
// encode a call to one of a handful of addresses. They allocate nothing per instruction.

export interface CodeRegion {
  /** Virtual address of bytes[0]. */
  address: number;
  bytes: Buffer;
}

export interface CallTargets {
  /** Address of a function, PLT entry or thunk → target id. */
  addresses: Map<number, number>;
  /** Address of a pointer slot (GOT, IAT) → target id. */
  slots: Map<number, number>;
}

/** Receives the target id and the address of the call instruction. */
export type OnCall = (target: number, site: number) => void;

/** Lowest and highest target address, so a decoder can skip the map lookup for most candidate calls. */
export function addressRange(map: Map<number, number>): { min: number; max: number } {
  let min = Infinity;
  let max = -Infinity;
  for (const a of map.keys()) {
    if (a < min) min = a;
    if (a > max) max = a;
  }
  return { min, max };
}
