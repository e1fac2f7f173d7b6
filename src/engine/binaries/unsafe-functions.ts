// The risky C library functions (CWE-676): unbounded copies and formatting (strcpy, strcat, sprintf, vsprintf,
// gets), the scanf family (unbounded %s), and command execution (system, popen, the exec family). Symbol
// spellings vary: glibc's C99 scanf entry points (__isoc99_sscanf, __isoc23_sscanf) and the MSVC CRT's
// underscore and wide forms (_popen, _wsystem, _execvp) map to the canonical name. Fortified variants
// (__sprintf_chk) are bounds-checked and do not count.
import type { BinaryUnsafeFunction } from '../types.js';

const UNSAFE = new Set([
  'strcpy', 'strcat', 'sprintf', 'vsprintf', 'gets',
  'scanf', 'fscanf', 'sscanf', 'vscanf', 'vfscanf', 'vsscanf',
  'system', 'popen',
  'execl', 'execle', 'execlp', 'execlpe', 'execv', 'execve', 'execvp', 'execvpe', 'fexecve', 'execveat',
]);

/** The canonical unsafe function a symbol stands for, or undefined. */
export function unsafeFunctionName(symbol: string, format: 'elf' | 'pe'): string | undefined {
  if (UNSAFE.has(symbol)) return symbol;
  if (format === 'elf') {
    if (!symbol.startsWith('__isoc')) return undefined;
    const c99 = /^__isoc(?:99|23)_(\w+)$/.exec(symbol);
    return c99 && UNSAFE.has(c99[1]!) ? c99[1] : undefined;
  }
  if (symbol[0] !== '_') return undefined;
  const crt = /^_w?(\w+)$/.exec(symbol);
  return crt && UNSAFE.has(crt[1]!) ? crt[1] : undefined;
}

export interface UnsafeCandidate {
  name: string;
  symbol: string;
  linkage: 'imported' | 'static';
}

/** Function symbols sorted by address, to name the function holding a call site; sorted on first use. */
export class FunctionIndex {
  private addresses = new Float64Array(0);
  private names: string[] = [];
  private functions: (() => Array<{ address: number; name: string }>) | undefined;

  /** `functions` is called once, when the first call site needs a name. */
  constructor(functions: () => Array<{ address: number; name: string }>) {
    this.functions = functions;
  }

  /** The nearest function at or before `address` ('' when none). */
  at(address: number): string {
    if (this.functions) {
      const sorted = this.functions().sort((a, b) => a.address - b.address);
      this.functions = undefined;
      this.addresses = Float64Array.from(sorted, (f) => f.address);
      this.names = sorted.map((f) => f.name);
    }
    let lo = 0;
    let hi = this.addresses.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.addresses[mid]! <= address) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found < 0 ? '' : this.names[found]!;
  }
}

/** Collects the call sites the decoders report, per candidate (target id = index in `candidates`) and caller. */
export class UnsafeCallCollector {
  private readonly counts: number[];
  private readonly callers: Array<Map<string, number>>;
  /** Sites already counted (a region decoded twice, or two decoders reading one instruction, count once). */
  private readonly seen = new Set<number>();

  constructor(
    readonly candidates: UnsafeCandidate[],
    private readonly functions: FunctionIndex,
  ) {
    this.counts = candidates.map(() => 0);
    this.callers = candidates.map(() => new Map());
  }

  readonly onCall = (target: number, site: number): void => {
    if (this.seen.has(site)) return;
    this.seen.add(site);
    this.counts[target]!++;
    const caller = this.functions.at(site);
    if (caller === '') return;
    const map = this.callers[target]!;
    map.set(caller, (map.get(caller) ?? 0) + 1);
  };

  /** One entry per candidate; call sites only when `decoded`. */
  result(decoded: boolean): BinaryUnsafeFunction[] {
    return this.candidates.map((c, i) => {
      const callers = [...this.callers[i]!].map(([fn, n]) => ({ function: fn, callSites: n })).sort((a, b) => b.callSites - a.callSites || a.function.localeCompare(b.function));
      return decoded ? { ...c, callSites: this.counts[i]!, callers } : { ...c, callers: [] };
    });
  }
}

/** Uses of unsafe functions in one binary: call sites where decoded, otherwise one per function. */
export function unsafeUses(functions: BinaryUnsafeFunction[], decoded: boolean): number {
  return decoded ? functions.reduce((n, f) => n + (f.callSites ?? 0), 0) : functions.length;
}

/** The image total the summaries show: call sites where decoded, imports (or linked functions) elsewhere. */
export function totalUnsafeUses(binaries: Array<{ unsafeUses: number }>): number {
  return binaries.reduce((n, b) => n + b.unsafeUses, 0);
}
