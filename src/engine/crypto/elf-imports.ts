// Crypto functions an ELF binary imports from a shared library (undefined dynamic symbols, read with the
// inventory's ELF parser): the algorithms a program uses even when the library itself is another file.
// The string scan sees the same names but cannot tell an import from a definition, and reports library
// functions only where the library's own markers are present.
import type { ByteSource } from '../binaries/byte-source.js';
import { parseElf } from '../binaries/elf.js';
import type { AlgorithmHit } from './detections.js';
import { LIBRARIES, parseSpec } from './libraries.js';

const BY_SYMBOL = new Map<string, { library: string; spec: string }>();
for (const library of LIBRARIES) {
  for (const [name, spec] of Object.entries(library.functions)) {
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !BY_SYMBOL.has(name)) BY_SYMBOL.set(name, { library: library.name, spec });
  }
}

/** Algorithm uses implied by imported crypto functions; empty for non-ELF or damaged files. */
export async function elfCryptoImports(source: ByteSource): Promise<AlgorithmHit[]> {
  if (source.size < 64) return [];
  const magic = await source.read(0, 4);
  if (magic.toString('latin1') !== '\x7fELF') return [];
  let symbols;
  try {
    symbols = (await parseElf(source)).dynamicSymbols;
  } catch {
    return [];
  }
  const out: AlgorithmHit[] = [];
  for (const symbol of symbols) {
    if (symbol.defined) continue;
    const known = BY_SYMBOL.get(symbol.name);
    if (!known) continue;
    out.push({ ...parseSpec(known.spec), method: 'elf-import', what: `imports ${symbol.name} (${known.library})`, kind: 'crypto', library: known.library });
  }
  return out;
}
