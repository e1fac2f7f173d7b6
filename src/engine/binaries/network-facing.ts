// Whether a binary faces the network, which raises the severity of its unsafe-function and hardening findings:
// it accepts connections (imports or links `socket` together with `bind`, `listen` or `accept`), or its file
// name is that of a well-known network daemon (telnetd, httpd, dropbear, sshd, dnsmasq, uhttpd, lighttpd, ...).
// A client that only connects does not count.
import { posix } from 'node:path';

const DAEMONS = new Set([
  'telnetd', 'utelnetd', 'httpd', 'mini_httpd', 'thttpd', 'lighttpd', 'uhttpd', 'boa', 'goahead', 'webs', 'nginx',
  'dropbear', 'sshd', 'dnsmasq', 'udhcpd', 'miniupnpd', 'upnpd', 'vsftpd', 'proftpd', 'ftpd', 'tftpd', 'smbd',
  'nmbd', 'snmpd', 'inetd', 'xinetd', 'lld2d', 'hostapd', 'pppd', 'cwmpd', 'tr069',
]);

/** ws2_32.dll / wsock32.dll ordinals of the socket API, for images that import them by number. */
export const WINSOCK_ORDINALS: Record<string, string> = { '#1': 'accept', '#2': 'bind', '#13': 'listen', '#23': 'socket' };

export function isNetworkFacing(path: string, functions: ReadonlySet<string>): boolean {
  const name = posix.basename(path).toLowerCase().replace(/\.(exe|bin)$/, '');
  if (DAEMONS.has(name)) return true;
  return functions.has('socket') && (functions.has('bind') || functions.has('listen') || functions.has('accept'));
}
