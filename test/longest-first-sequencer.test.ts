// The suite's order: longest files first within each project, by vitest's own timings when it has them and by
// test/durations.json otherwise; projects in vitest's order; unknown files after the known ones.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { LongestFirstSequencer, listedDurations } from './longest-first-sequencer.js';

const root = '/repo';

function spec(path: string, project: string, isolate = false): TestSpecification {
  return { moduleId: `${root}/${path}`, project: { name: project, config: { isolate, sequence: { groupOrder: 0 } } } } as unknown as TestSpecification;
}

function sequencer(own: Record<string, number> = {}): LongestFirstSequencer {
  const ctx = {
    config: { root },
    cache: {
      getFileTestResults: (key: string) => (key in own ? { duration: own[key], failed: false } : undefined),
      getFileStats: () => undefined,
    },
  } as unknown as Vitest;
  return new LongestFirstSequencer(ctx);
}

const names = (files: TestSpecification[]) => files.map((f) => `${f.project.name}:${f.moduleId.slice(root.length + 1)}`);

describe('longest-first test order', () => {
  it('reads the listed durations of the repository', () => {
    const listed = listedDurations();
    expect(listed.size).toBeGreaterThan(20);
    for (const seconds of listed.values()) expect(seconds).toBeGreaterThanOrEqual(1);
  });

  it('starts the longest listed files first, the unknown ones last, the isolated project before the shared one', async () => {
    const order = sequencer();
    const listed = listedDurations();
    const [longest, second] = [...listed.entries()].sort((a, b) => b[1] - a[1]).map(([path]) => path);
    const files = [spec('test/unknown.test.ts', 'shared'), spec(second!, 'shared'), spec('test/mocks.test.ts', 'isolated', true), spec(longest!, 'shared')];
    expect(names(await order.sort(files))).toEqual(['isolated:test/mocks.test.ts', `shared:${longest}`, `shared:${second}`, 'shared:test/unknown.test.ts']);
  });

  it("prefers vitest's own timings of a file to the listed ones", async () => {
    const listed = listedDurations();
    const [longest, second] = [...listed.entries()].sort((a, b) => b[1] - a[1]).map(([path]) => path);
    const order = sequencer({ [`shared:${second}`]: (listed.get(longest!)! + 100) * 1000 });
    expect(names(await order.sort([spec(longest!, 'shared'), spec(second!, 'shared')]))).toEqual([`shared:${second}`, `shared:${longest}`]);
  });

  it('lists nothing from a missing or broken file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'firmscope-durations-'));
    try {
      await writeFile(join(dir, 'broken.json'), '{');
      expect(listedDurations(new URL(`file://${dir}/broken.json`)).size).toBe(0);
      expect(listedDurations(new URL(`file://${dir}/missing.json`)).size).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
