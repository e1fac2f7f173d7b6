// Preprocessor conditions of kernel source on CONFIG_ options, evaluated against a kernel configuration, for the
// kernel triage: whether a function defined under `#ifdef CONFIG_X` (tables/kernel-function-guards.json.gz,
// scripts/kernel-file-functions.ts) is compiled. Three-valued: true, false, or undefined when the condition depends
// on something the configuration does not tell (THREAD_SIZE >= PAGE_SIZE, a numeric comparison, an unknown macro).
// As kconfig writes them: CONFIG_X is defined when X=y, CONFIG_X_MODULE when X=m; an option the configuration does
// not list is off.
import type { KernelConfig } from './kernel-config.js';

type Value = boolean | undefined;

const not = (v: Value): Value => (v === undefined ? undefined : !v);
const and = (a: Value, b: Value): Value => (a === false || b === false ? false : a === true && b === true ? true : undefined);
const or = (a: Value, b: Value): Value => (a === true || b === true ? true : a === false && b === false ? false : undefined);

/** Whether CONFIG_<name> (or CONFIG_<name>_MODULE) is defined for the preprocessor. */
function definedIn(macro: string, config: KernelConfig): Value {
  const m = /^CONFIG_(\w+)$/.exec(macro);
  if (!m) return undefined;
  const option = m[1]!;
  if (option.endsWith('_MODULE') && config.get(option.slice(0, -7)) === 'm') return true;
  return config.get(option) === 'y';
}

const TESTS: Record<string, (setting: 'y' | 'm' | 'n') => Value> = {
  IS_ENABLED: (s) => s !== 'n',
  IS_BUILTIN: (s) => s === 'y',
  IS_MODULE: (s) => s === 'm',
  // reachable from built-in code only when built in; from a module also when =m (the caller's build is not known)
  IS_REACHABLE: (s) => (s === 'y' ? true : s === 'n' ? false : undefined),
};

/** Evaluates a condition such as `(defined(CONFIG_A)) && !(IS_ENABLED(CONFIG_B) || CONFIG_C)`. */
export function evaluateCondition(condition: string, config: KernelConfig): Value {
  const tokens = condition.match(/\w+|&&|\|\||[!=<>]=|<<|>>|[()!<>+\-*/%&|^~?:,]/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const setting = (macro: string | undefined) => {
    const m = macro ? /^CONFIG_(\w+)$/.exec(macro) : null;
    return m ? (config.get(m[1]!) ?? 'n') : undefined;
  };
  const primary = (): Value => {
    const t = tokens[at++];
    if (t === undefined) return undefined;
    if (t === '!') return not(primary());
    if (t === '(') {
      const v = expression();
      if (peek() === ')') at++;
      return v;
    }
    if (t === 'defined') {
      const paren = peek() === '(';
      if (paren) at++;
      const v = definedIn(tokens[at++] ?? '', config);
      if (paren && peek() === ')') at++;
      return v;
    }
    if (TESTS[t] && peek() === '(') {
      at++;
      const s = setting(tokens[at++]);
      if (peek() === ')') at++;
      return s === undefined ? undefined : TESTS[t]!(s);
    }
    if (/^\d+$/.test(t)) return Number(t) !== 0;
    // a bare CONFIG_X is 1 when built in; anything else (another macro, a function-like one) is not known
    if (/^CONFIG_\w+$/.test(t)) return config.get(t.slice(7)) === 'y';
    if (peek() === '(') skipGroup();
    return undefined;
  };
  const skipGroup = () => {
    let depth = 0;
    do {
      const t = tokens[at++];
      if (t === '(') depth++;
      else if (t === ')') depth--;
    } while (depth > 0 && at < tokens.length);
  };
  // a comparison or arithmetic on an operand: its value is not a configuration fact
  const operand = (): Value => {
    let v = primary();
    while (peek() !== undefined && !['&&', '||', ')'].includes(peek()!)) {
      at++;
      primary();
      v = undefined;
    }
    return v;
  };
  const conjunction = (): Value => {
    let v = operand();
    while (peek() === '&&') { at++; v = and(v, operand()); }
    return v;
  };
  const expression = (): Value => {
    let v = conjunction();
    while (peek() === '||') { at++; v = or(v, conjunction()); }
    return v;
  };
  return expression();
}
