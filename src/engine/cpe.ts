// CPE 2.3 formatted strings (NISTIR 7695 §6.2): cpe:2.3:part:vendor:product:version:update:edition:language:
// sw_edition:target_sw:target_hw:other. Building them for the inventory (vendor and product always come from the
// curated mapping; a wildcard or empty vendor is refused, because such CPEs match every product of that name, the
// classic false positive), and for the matcher: splitting on unescaped ':', unescaping, and the attribute
// comparison. ANY ('*') and NA ('-') are kept as such; '*' and '?' inside a value are wildcards.
import { escapeRegExp } from './regexp-escape.js';

const RESERVED = /[\\!"#$%&'()+,/:;<=>@[\]^`{|}~?*]/g;

/** Escapes one attribute value; lower-cases and turns spaces into underscores as NVD does. */
export function cpeValue(value: string): string {
  const v = value.trim().toLowerCase().replace(/\s+/g, '_');
  return v.replace(RESERVED, (c) => `\\${c}`);
}

export interface CpeParts {
  part?: 'a' | 'o' | 'h';
  vendor: string;
  product: string;
  version?: string;
  update?: string;
}

export function buildCpe(p: CpeParts): string {
  if (!p.vendor || p.vendor === '*' || !p.product || p.product === '*') {
    throw new Error(`refusing a CPE without a concrete vendor and product (${p.vendor}:${p.product})`);
  }
  const version = p.version ? cpeValue(p.version) : '*';
  const update = p.update ? cpeValue(p.update) : '*';
  return ['cpe', '2.3', p.part ?? 'a', cpeValue(p.vendor), cpeValue(p.product), version, update, '*', '*', '*', '*', '*', '*'].join(':');
}

export const CPE_ATTRIBUTES = [
  'part', 'vendor', 'product', 'version', 'update', 'edition',
  'language', 'swEdition', 'targetSw', 'targetHw', 'other',
] as const;

export type Cpe = Record<(typeof CPE_ATTRIBUTES)[number], string>;

/** Parses 'cpe:2.3:a:busybox:busybox:1.31.1:*:*:*:*:*:*:*' (values lower-cased, escapes kept); undefined for anything else. */
export function parseCpe(text: string): Cpe | undefined {
  if (!text.startsWith('cpe:2.3:')) return undefined;
  const fields: string[] = [];
  let current = '';
  for (let i = 'cpe:2.3:'.length; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      current += c + text[i + 1];
      i++;
    } else if (c === ':') {
      fields.push(current);
      current = '';
    } else current += c;
  }
  fields.push(current);
  if (fields.length !== CPE_ATTRIBUTES.length) return undefined;
  const cpe = {} as Cpe;
  CPE_ATTRIBUTES.forEach((name, i) => {
    cpe[name] = fields[i]!.toLowerCase();
  });
  return cpe;
}

/** The value without CPE escapes ('wp_maintenance_mode_\\&_coming_soon' → 'wp_maintenance_mode_&_coming_soon'). */
export function unescapeCpe(value: string): string {
  return value.includes('\\') ? value.replace(/\\(.)/g, '$1') : value;
}

const isLogical = (v: string) => v === '*' || v === '-' || v === '';

/** True when the value holds an unescaped '*' or '?' that is not the whole value. */
function hasWildcard(value: string): boolean {
  return !isLogical(value) && /(^|[^\\])[*?]/.test(value);
}

function wildcardRegExp(value: string): RegExp {
  let re = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\' && i + 1 < value.length) re += escapeRegExp(value[++i]!);
    else if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else re += escapeRegExp(c);
  }
  return new RegExp(`^${re}$`);
}

/**
 * Whether the criterion's attribute value admits the component's value. ANY on either side admits (an
 * inventory leaves most attributes unknown); NA only admits NA or ANY; otherwise equal after unescaping,
 * or matching the criterion's wildcards.
 */
export function attributeMatches(criterion: string, component: string): boolean {
  if (criterion === '*' || criterion === '' || component === '*' || component === '') return true;
  if (criterion === '-' || component === '-') return criterion === component;
  if (hasWildcard(criterion)) return wildcardRegExp(criterion).test(unescapeCpe(component));
  return unescapeCpe(criterion) === unescapeCpe(component);
}

export { hasWildcard as cpeHasWildcard, wildcardRegExp as cpeWildcardRegExp };
