// The order the suite's files start in: longest first, so that the two workers end together. Vitest orders by the
// durations of its previous run, kept in node_modules/.vite; a clean checkout (CI) has none, and then vitest keeps
// the files' listed order, which started the two 55-60 s crash-recovery files last and left one worker idle for
// the last minute (660 s for 1,124 s of files, 2026-11-30). Here a file's duration is vitest's own when it has one,
// else the one in test/durations.json (scripts/test-durations.mjs writes it from a JSON report), else unknown and
// run after the known ones. Projects stay in vitest's order (the isolated project first).
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds by file path from the repository root (test/durations.json). */
export function listedDurations(file = new URL('./durations.json', import.meta.url)): Map<string, number> {
  try {
    const { seconds } = JSON.parse(readFileSync(file, 'utf8')) as { seconds: Record<string, number> };
    return new Map(Object.entries(seconds));
  } catch {
    return new Map();
  }
}

export class LongestFirstSequencer extends BaseSequencer {
  private readonly listed = listedDurations();

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const projectOrder = new Map<string, number>();
    for (const spec of await super.sort(files)) if (!projectOrder.has(spec.project.name)) projectOrder.set(spec.project.name, projectOrder.size);
    const seconds = (spec: TestSpecification): number => {
      const path = relative(root, spec.moduleId).split('\\').join('/');
      const own = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`)?.duration;
      return own !== undefined ? own / 1000 : (this.listed.get(path) ?? 0);
    };
    return [...files].sort((a, b) => projectOrder.get(a.project.name)! - projectOrder.get(b.project.name)! || seconds(b) - seconds(a));
  }
}
