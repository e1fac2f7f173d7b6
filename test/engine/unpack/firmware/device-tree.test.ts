import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { deviceTreeHandler } from '../../../../src/engine/unpack/firmware/device-tree/device-tree.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';

const dts = `/dts-v1/;
/ {
	model = "Firmscope Test Board";
	compatible = "firmscope,test", "firmscope,base";
	#address-cells = <1>;
	#size-cells = <1>;
	memory@80000000 { device_type = "memory"; reg = <0x80000000 0x8000000>; };
	chosen { bootargs = "console=ttyS0,115200 root=/dev/mtdblock2"; };
	blob { bytes = [01 02 03]; empty; };
};
`;
const dtb = () => execFileSync('dtc', ['-I', 'dts', '-O', 'dtb', '-'], { input: dts, stdio: 'pipe' });

describe('device-tree', () => {
  it('finds a blob appended to a kernel and prints its source', async () => {
    const blob = dtb();
    const image = Buffer.concat([Buffer.alloc(100, 0x90), blob, Buffer.alloc(20)]);
    const out = await runHandler(deviceTreeHandler, new BufferReader(image), 100);
    expect(out.chunk).toMatchObject({ start: 100, end: 100 + blob.length, meta: { model: 'Firmscope Test Board', compatible: ['firmscope,test', 'firmscope,base'] } });
    const text = (await out.read('devicetree.dts')).toString();
    expect(text).toContain('model = "Firmscope Test Board";');
    expect(text).toContain('reg = <0x80000000 0x8000000>;');
    expect(text).toContain('bootargs = "console=ttyS0,115200 root=/dev/mtdblock2";');
    expect(text).toContain('bytes = [01 02 03];');
    expect(text).toContain('empty;');
    // dtc reads the printed source back into the same tree.
    const again = execFileSync('dtc', ['-I', 'dts', '-O', 'dtb', '-'], { input: text, stdio: 'pipe' });
    expect(execFileSync('dtc', ['-I', 'dtb', '-O', 'dts', '-'], { input: again }).toString()).toBe(execFileSync('dtc', ['-I', 'dtb', '-O', 'dts', '-'], { input: blob }).toString());
    await out.cleanup();
  });

  it('rejects truncated and corrupt blobs with a reason, implausible headers quietly', async () => {
    const blob = dtb();
    await expect(deviceTreeHandler.chunk(new BufferReader(blob.subarray(0, blob.length - 8)), 0)).rejects.toThrow(/truncated/);
    await expectTruncationsRefused(deviceTreeHandler, blob);
    const badToken = Buffer.from(blob);
    badToken.writeUInt32BE(0x77, badToken.readUInt32BE(8)); // first structure token
    await expect(deviceTreeHandler.chunk(new BufferReader(badToken), 0)).rejects.toThrow(/unknown token/);
    const badVersion = Buffer.from(blob);
    badVersion.writeUInt32BE(2, 20);
    expect(await deviceTreeHandler.chunk(new BufferReader(badVersion), 0)).toBeNull();
  });
});
