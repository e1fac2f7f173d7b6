// Kernel configuration evidence: the image's kernel .config, from a /boot/config-*, a .config, /proc/config(.gz),
// or the IKCONFIG blob embedded in the kernel image (CONFIG_IKCONFIG).
import { gunzipSync } from 'node:zlib';
import type { FileIndex } from '../file-index.js';
import type { Component } from '../types.js';
import { kernelImages } from './kernel-symbols.js';

export type KernelConfig = Map<string, 'y' | 'm' | 'n'>;

/** A kernel .config: CONFIG_X=y|m (other values count as on), '# CONFIG_X is not set'. */
export function parseKernelConfig(text: string): KernelConfig {
  const config: KernelConfig = new Map();
  for (const line of text.split('\n')) {
    const on = /^CONFIG_([A-Za-z0-9_]+)=(.*)$/.exec(line);
    if (on) config.set(on[1]!, on[2] === 'm' ? 'm' : on[2] === 'n' ? 'n' : 'y');
    const off = /^# CONFIG_([A-Za-z0-9_]+) is not set/.exec(line);
    if (off) config.set(off[1]!, 'n');
  }
  return config;
}

const IKCFG_START = Buffer.from('IKCFG_ST');
/** The configuration embedded by CONFIG_IKCONFIG: gzip data between IKCFG_ST and IKCFG_ED. */
export function embeddedConfig(kernel: Buffer): string | undefined {
  const at = kernel.indexOf(IKCFG_START);
  if (at < 0) return undefined;
  try {
    return gunzipSync(kernel.subarray(at + IKCFG_START.length, kernel.indexOf('IKCFG_ED', at) > 0 ? kernel.indexOf('IKCFG_ED', at) : undefined)).toString('utf8');
  } catch {
    return undefined;
  }
}

/** The kernel's configuration found in the image, with where it came from. */
export async function findKernelConfig(index: FileIndex, kernels: Component[]): Promise<{ config: KernelConfig; source: string } | undefined> {
  for (const node of index.glob('**/boot/config-*', '**/.config', '**/proc/config')) {
    if (node.size > 4 * 1024 * 1024) continue;
    const config = parseKernelConfig((await index.read(node)).toString('utf8'));
    if (config.size > 0) return { config, source: node.path };
  }
  for (const node of index.glob('**/config.gz', '**/proc/config.gz')) {
    try {
      const config = parseKernelConfig(gunzipSync(await index.read(node)).toString('utf8'));
      if (config.size > 0) return { config, source: node.path };
    } catch { /* not gzip */ }
  }
  for (const node of kernelImages(index, kernels)) {
    const text = embeddedConfig(await index.read(node));
    if (text) return { config: parseKernelConfig(text), source: `${node.path} (IKCONFIG)` };
  }
  return undefined;
}
