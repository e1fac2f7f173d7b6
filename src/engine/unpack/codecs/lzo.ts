// LZO1X decompressor (the raw block format liblzo2's lzo1x_1/lzo1x_999 compressors produce, as used by SquashFS
// LZO blocks, lzop and UBIFS), written from the instruction encoding described in Linux
// Documentation/staging/lzo.rst. Every read and copy is bounds-checked; the output is capped at `maxOutput`.
import { FormatError } from '../../format-error.js';

/**
 * Decodes one LZO1X block. Stops at the end-of-stream instruction; input or output overruns, zero or
 * out-of-range match distances and a missing end marker are FormatErrors.
 */
export function lzo1xDecompress(data: Buffer, maxOutput: number): Buffer {
  const out = Buffer.allocUnsafe(maxOutput);
  const end = data.length;
  let ip = 0;
  let op = 0;
  const fail = (why: string): never => {
    throw new FormatError(`lzo: ${why} at input ${ip}`);
  };
  const byte = (): number => {
    if (ip >= end) fail('truncated input');
    return data[ip++]!;
  };
  /** Extended length: each zero byte adds 255, the first non-zero byte ends it. */
  const extend = (base: number): number => {
    let n = base;
    let b = byte();
    while (b === 0) {
      n += 255;
      if (n > maxOutput) fail('length larger than the output');
      b = byte();
    }
    return n + b;
  };
  const literals = (count: number): void => {
    if (ip + count > end) fail('literal run past end of input');
    if (op + count > maxOutput) fail(`output larger than ${maxOutput} bytes`);
    data.copy(out, op, ip, ip + count);
    ip += count;
    op += count;
  };
  const match = (distance: number, length: number): void => {
    if (distance > op) fail(`match distance ${distance} before start of output`);
    if (op + length > maxOutput) fail(`output larger than ${maxOutput} bytes`);
    let from = op - distance;
    if (distance >= length) {
      out.copy(out, op, from, from + length);
      op += length;
    } else {
      // Overlapping copy: repeats the last `distance` bytes.
      for (let i = 0; i < length; i++) out[op++] = out[from++]!;
    }
  };

  // state: literals copied by the previous instruction (0..3), or 4 after a literal run of 4 or more.
  let state = 0;
  if (end > 0 && data[0]! > 17) {
    const count = byte() - 17;
    literals(count);
    state = count < 4 ? count : 4;
  }
  for (;;) {
    const t = byte();
    let next: number;
    if (t < 16) {
      if (state === 0) {
        literals((t === 0 ? extend(15) : t) + 3);
        state = 4;
        continue;
      }
      const h = byte();
      next = t & 3;
      if (state === 4) match((h << 2) + (t >> 2) + 2049, 3);
      else match((h << 2) + (t >> 2) + 1, 2);
    } else if (t >= 64) {
      const h = byte();
      next = t & 3;
      match((h << 3) + ((t >> 2) & 7) + 1, (t >> 5) + 1);
    } else if (t >= 32) {
      const length = ((t & 31) === 0 ? extend(31) : t & 31) + 2;
      const d = byte() | (byte() << 8);
      next = d & 3;
      match((d >> 2) + 1, length);
    } else {
      const length = ((t & 7) === 0 ? extend(7) : t & 7) + 2;
      const d = byte() | (byte() << 8);
      const distance = 16384 + ((t & 8) << 11) + (d >> 2);
      if (distance === 16384) {
        if (length !== 3) fail('malformed end-of-stream marker');
        if (ip !== end) fail(`${end - ip} bytes after the end-of-stream marker`);
        return out.subarray(0, op);
      }
      next = d & 3;
      match(distance, length);
    }
    if (next > 0) literals(next);
    state = next;
  }
}
