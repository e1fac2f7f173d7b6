// Test helpers for the weakness rules: write a fixture root filesystem into a temp folder, index it (modes and
// owners can be set per path, as a squashfs would carry them) and run the weaknesses analyzer or one rule.
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AnalysisContext } from '../../../src/engine/analyzer.js';
import { FileIndex } from '../../../src/engine/file-index.js';
import type { FileNode } from '../../../src/engine/types.js';
import type { WeaknessRule } from '../../../src/engine/weaknesses/rule.js';
import { createWeaknessesAnalyzer } from '../../../src/engine/weaknesses/weaknesses.analyzer.js';
import { needCommands } from '../../support/requirements.js';
import { tempDir } from '../../support/temp-dirs.js';
import { runInventory } from '../inventory/support.js';

export interface FixtureFile {
  content?: string | Buffer;
  mode?: number;
  uid?: number;
  kind?: FileNode['kind'];
  linkTarget?: string;
}

/**
 * A root filesystem under `prefix` (like an extraction folder 'image_extract/0-100.squashfs-v4'); paths are
 * filesystem paths without the leading '/'. Directories are created as nodes with mode 0755 unless listed.
 */
export function fixture(files: Record<string, string | Buffer | FixtureFile>, prefix = 'img_extract/0-100.squashfs-v4'): FileIndex {
  const root = tempDir('firmscope-weak');
  const nodes = new Map<string, FileNode>();
  const node = (fsPath: string, spec: FixtureFile): FileNode => {
    const path = prefix ? `${prefix}${fsPath}` : fsPath.slice(1);
    return { path, fsPath, kind: spec.kind ?? 'file', size: 0, type: 'data', depth: 1, mode: spec.mode ?? 0o644, uid: spec.uid ?? 0, gid: 0, ...(spec.linkTarget ? { linkTarget: spec.linkTarget } : {}) };
  };
  for (const [rel, value] of Object.entries(files)) {
    const spec: FixtureFile = typeof value === 'string' || Buffer.isBuffer(value) ? { content: value } : value;
    const fsPath = '/' + rel;
    for (let d = dirname(fsPath); d !== '/'; d = dirname(d)) if (!nodes.has(d)) nodes.set(d, node(d, { kind: 'directory', mode: 0o755 }));
    const n = node(fsPath, spec);
    if (n.kind === 'file') {
      const abs = join(root, n.path);
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, spec.content ?? '');
      n.size = statSync(abs).size;
    } else if (n.kind === 'directory') {
      mkdirSync(join(root, n.path), { recursive: true });
    }
    nodes.set(fsPath, n);
  }
  return new FileIndex(root, [...nodes.values()]);
}

/** Runs the weaknesses analyzer (all rules, or the given ones) over `index`. */
export async function analyze(index: FileIndex, rules?: WeaknessRule[]): Promise<AnalysisContext> {
  return runInventory(index, createWeaknessesAnalyzer(rules));
}

/** `openssl passwd -1|-5|-6` of `password`; undefined when openssl is not installed. */
export function opensslPasswd(scheme: '-1' | '-5' | '-6', password: string): string | undefined {
  try {
    return execFileSync('openssl', ['passwd', scheme, '-stdin'], { input: password + '\n' }).toString('utf8').trim();
  } catch {
    return undefined;
  }
}

export const HAVE_OPENSSL = needCommands(['openssl'], 'the tests that generate password hashes with openssl');
