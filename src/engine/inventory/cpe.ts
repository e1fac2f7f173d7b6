// CPE 2.3 formatted strings (NISTIR 7695 §6.2): cpe:2.3:part:vendor:product:version:update:edition:language:
// sw_edition:target_sw:target_hw:other. Vendor and product always come from the curated mapping; a wildcard or
// empty vendor is refused, because such CPEs match every product of that name (the classic false positive).

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

/** Splits a CPE 2.3 formatted string into its 13 fields, honouring backslash escapes. */
export function parseCpe(cpe: string): string[] | undefined {
  const fields: string[] = [];
  let current = '';
  for (let i = 0; i < cpe.length; i++) {
    const c = cpe[i];
    if (c === '\\' && i + 1 < cpe.length) {
      current += c + cpe[++i];
    } else if (c === ':') {
      fields.push(current);
      current = '';
    } else current += c;
  }
  fields.push(current);
  return fields.length === 13 && fields[0] === 'cpe' && fields[1] === '2.3' ? fields : undefined;
}
