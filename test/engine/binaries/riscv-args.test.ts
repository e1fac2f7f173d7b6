import { describe, expect, it } from 'vitest';
import { riscvCallsWithString } from '../../../src/engine/binaries/riscv-args.js';

// Encoders for the few instructions the decoder reads (RISC-V unprivileged spec, RV32I/RV64I and C).
const word = (w: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(w >>> 0);
  return b;
};
const half = (h: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(h);
  return b;
};
const cLi = (rd: number, imm: number): Buffer => half((0b010 << 13) | (((imm >> 5) & 1) << 12) | (rd << 7) | ((imm & 31) << 2) | 0b01);
const addiLi = (rd: number, imm: number): Buffer => word(((imm & 0xfff) << 20) | (rd << 7) | 0x13);
const auipc = (rd: number, hi: number): Buffer => word((hi << 12) | (rd << 7) | 0x17);
const addi = (rd: number, rs1: number, imm: number): Buffer => word(((imm & 0xfff) << 20) | (rs1 << 15) | (rd << 7) | 0x13);
const jalRa = (): Buffer => word((1 << 7) | 0x6f);
const jalrRa = (): Buffer => word((1 << 15) | (1 << 7) | 0x67);
const nop = (): Buffer => word(0x13);

/** Code at offset 0 that passes the address of a string placed `distance` bytes after the auipc. */
function program(before: Buffer[], after: Buffer[], call: Buffer[], distance: number): { data: Buffer; target: number } {
  const head = Buffer.concat([nop(), ...before]);
  const at = head.length;
  const hi = (distance + 0x800) >> 12;
  const lo = distance - (hi << 12);
  const code = Buffer.concat([head, auipc(10, hi), addi(10, 10, lo), ...after, ...call]);
  const data = Buffer.concat([code, Buffer.alloc(at + distance - code.length), Buffer.from('\nOpenSBI v%d.%d\n\0', 'latin1')]);
  return { data, target: at + distance };
}

describe('RISC-V call arguments for a string', () => {
  it('reads c.li arguments before the address load of a jal call (the real OpenSBI 1.1 bytes)', () => {
    // Debian bookworm opensbi 1.1-2, fw_dynamic.bin at 0x74c: li a2,1; li a1,1; auipc a0,22; addi a0,a0,-1864; jal sbi_printf.
    const code = Buffer.from('0546854517650100130585 8bef508000'.replace(/ /g, ''), 'hex');
    const data = Buffer.concat([code, Buffer.alloc(0x16008 - 0x74c - code.length), Buffer.from('\nOpenSBI v%d.%d\n\0', 'latin1')]);
    const calls = riscvCallsWithString(data, 0x16008 - 0x74c);
    expect(calls).toHaveLength(1);
    expect(calls[0].at).toBe(4);
    expect([...calls[0].args].sort()).toEqual([
      [11, 1],
      [12, 1],
    ]);
  });

  it('reads addi-form arguments after the address load and an auipc/jalr call', () => {
    const { data, target } = program([], [addiLi(11, 0), addiLi(12, 9)], [auipc(1, 0), jalrRa()], 70000);
    const calls = riscvCallsWithString(data, target);
    expect(calls.map((c) => [...c.args].sort())).toEqual([
      [
        [11, 0],
        [12, 9],
      ],
    ]);
  });

  it('reads a negative displacement (string before the code) and mixed forms', () => {
    const str = Buffer.from('\0\nOpenSBI v%d.%d\n\0', 'latin1');
    const pad = Buffer.alloc(5000);
    const at = str.length + pad.length;
    const distance = 1 - at;
    const hi = (distance + 0x800) >> 12;
    const data = Buffer.concat([str, pad, auipc(10, hi), addi(10, 10, distance - (hi << 12)), cLi(12, 3), addiLi(11, 2), jalRa()]);
    expect(riscvCallsWithString(data, 1).map((c) => Object.fromEntries(c.args))).toEqual([{ 11: 2, 12: 3 }]);
  });

  it('gives nothing without a call right after, for another register, or another target', () => {
    expect(riscvCallsWithString(program([cLi(11, 1), cLi(12, 1)], [], [nop()], 4096).data, 4100)).toEqual([]);
    const other = program([cLi(11, 1)], [], [jalRa()], 4096);
    expect(riscvCallsWithString(other.data, other.target + 1)).toEqual([]);
  });

  it('drops a call whose argument register is written twice', () => {
    const { data, target } = program([cLi(11, 1)], [cLi(11, 2), cLi(12, 0)], [jalRa()], 9000);
    expect(riscvCallsWithString(data, target)).toEqual([]);
  });
});
