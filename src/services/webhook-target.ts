// The SSRF guard of webhook targets: a URL whose host resolves to a loopback, private, link-local, unique-local,
// carrier-grade NAT, multicast or unspecified address is refused, unless allowed (FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE=1,
// read by config.ts and passed down).
// Checked after DNS resolution when the webhook is saved, and again at connect time (guardedLookup), so a name
// that resolves elsewhere later (DNS rebinding) cannot reach the inside.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import { InvalidInputError, UnprocessableError } from '../errors.js';

const lookupAll = promisify(dnsLookup);

function ipv4Private(address: string): boolean {
  const [a, b] = address.split('.').map(Number) as [number, number, number, number];
  return a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254)
    || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 198 && (b === 18 || b === 19)) || a >= 224;
}

/** Whether a literal address is one a webhook must not reach. */
export function isPrivateAddress(address: string): boolean {
  if (isIP(address) === 4) return ipv4Private(address);
  const lower = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return ipv4Private(mapped[1]!);
  return lower === '::' || lower === '::1' || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower) || lower.startsWith('ff');
}

/**
 * Refuses a target URL that is not http(s) (InvalidInputError, 400) or whose host does not resolve or resolves
 * to an inside address (UnprocessableError, 422).
 */
export async function assertPublicTarget(url: string, allowPrivate = false, resolve?: Resolver): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidInputError('url must be an absolute http(s) URL', [{ reason: 'invalid', field: 'url' }]);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new InvalidInputError('url must be http or https', [{ reason: 'invalid', field: 'url' }]);
  if (parsed.username || parsed.password) throw new InvalidInputError('url must not carry credentials', [{ reason: 'invalid', field: 'url' }]);
  if (allowPrivate) return;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: LookupAddress[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await (resolve ? promisify(resolve)(host, { all: true }) : lookupAll(host, { all: true }));
  } catch {
    throw new UnprocessableError(`the host ${host} does not resolve`, [{ reason: 'invalid', field: 'url' }]);
  }
  const inside = addresses.find((a) => isPrivateAddress(a.address));
  if (inside) throw new UnprocessableError(`the host ${host} resolves to ${inside.address}, an address inside the network; refused (an operator may allow such targets with FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE=1)`, [{ reason: 'forbidden', field: 'url' }]);
}

/** The resolver the connect-time check asks (node:dns's lookup; tests inject one that changes its answer). */
export type Resolver = (hostname: string, options: { all: true }, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that refuses inside addresses at connect time (unless allowed): the address the
 * socket connects to is the one checked.
 */
export function guardedLookup(allowPrivate = false, resolve: Resolver = dnsLookup) {
  return (hostname: string, options: object, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as LookupAddress[];
      const inside = allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address));
      if (inside) {
        const refused = Object.assign(new Error(`refused: ${hostname} resolves to ${inside.address}, inside the network`), { code: 'EWEBHOOKPRIVATE' });
        return callback(refused, []);
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
