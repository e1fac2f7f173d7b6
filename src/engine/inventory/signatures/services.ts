// Network services and their tools beyond the core daemons of network.ts: D-Bus and Bluetooth, proxies and load
// balancers, UPnP/DLNA, routing, DHCP/RA, VPN and remote access, mail, monitoring. Each form was seen in a real
// build (see the samples' sources in the tests).
import type { VersionSignature } from '../signature.js';
import { adjacent, banner, family } from './helpers.js';

const app = (id: string, cpe: VersionSignature['cpe'], patterns: VersionSignature['patterns'], extra: Partial<VersionSignature> = {}): VersionSignature =>
  family('application', id, cpe, patterns, extra);

/** '4.4.3-P1' → version '4.4.3', update 'p1' (NVD's split for ISC releases). */
const iscPatch = (v: string): { version: string; update?: string } => {
  const m = /^(\d+\.\d+\.\d+)-(P\d+)$/.exec(v);
  return m ? { version: m[1], update: m[2].toLowerCase() } : { version: v };
};

export const serviceSignatures: VersionSignature[] = [
  // dbus-daemon's option table keeps VERSION between '--version' and '--introspect'; libdbus's auth banner 'libdbus 1.14.10'.
  app('dbus', { vendor: 'freedesktop', product: 'dbus' }, [banner('--introspect', /\0--version\0(1\.\d+\.\d+)\0--introspect\0/, 0.9), banner('libdbus ', /\0libdbus (1\.\d+\.\d+)\0/, 0.9)]),
  app('bluez', { vendor: 'bluez', product: 'bluez' }, [adjacent('BlueZ %s', '5\\.\\d+', 0.85)]),
  app('haproxy', { vendor: 'haproxy', product: 'haproxy' }, [banner(', released ', /\0 version ([1-3]\.\d+\.\d+)(?:-[\w.+~]+)?, released \d{4}\/\d{2}\/\d{2}\0/, 0.9)]),
  app('socat', { vendor: 'dest-unreach', product: 'socat' }, [banner('www.dest-unreach.org', /www\.dest-unreach\.org\0{1,16}\d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2}\0{1,8}(1\.\d+\.\d+\.\d+)\0/, 0.9)]),
  app('minidlna', { vendor: 'minidlna_project', product: 'minidlna' }, [banner('MiniDLNA', /(?:Starting MiniDLNA version |UPnP\/1\.0 MiniDLNA\/)(1\.\d+\.\d+)[.\0\r]/, 0.9)]),
  app('miniupnpc', { vendor: 'miniupnp_project', product: 'miniupnpc' }, [banner('MiniUPnPc/', /UPnP\/1\.[01],? MiniUPnPc\/(\d+\.\d+(?:\.\d+)?)(?:\r\n|\0)/, 0.9)]),
  app('libupnp', { vendor: 'libupnp_project', product: 'libupnp' }, [banner('Portable SDK for UPnP devices/', /Portable SDK for UPnP devices\/(1\.\d+\.\d+)(?:\r\n|\0)/, 0.9)], { type: 'library' }),
  app('lldpd', { vendor: 'lldpd_project', product: 'lldpd' }, [banner('lldpd ', /\0lldpd (\d+\.\d+\.\d+) starting\.\.\.\0/, 0.9)]),
  app('keepalived', { vendor: 'keepalived', product: 'keepalived' }, [banner('Keepalived v', /\0Keepalived v(\d+\.\d+\.\d+) \(\d{2}\/\d{2},\d{4}\)/, 0.95)]),
  app('radvd', { vendor: 'litech', product: 'radvd' }, [adjacent('Version: %s\n\n', '[12]\\.\\d+(?:\\.\\d+)?', 0.85, true)], { files: ['radvd', 'radvdump'] }),
  app('dhcpcd', { vendor: 'roy_marples', product: 'dhcpcd' }, [banner(' starting\0', /\0dhcpcd-(\d+\.\d+\.\d+) starting\0/, 0.9)]),
  // dhclient and dhcpd keep PACKAGE_VERSION before their usage options.
  app('isc-dhcp', { vendor: 'isc', product: 'dhcp' }, [banner('{--version|--help|-h}', /\0(4\.\d+\.\d+(?:-P\d+)?)\0\{--version\|--help\|-h\}\0/, 0.85)], { cpeVersion: iscPatch }),
  app('iperf3', { vendor: 'es', product: 'iperf3' }, [banner('iperf ', /\0iperf (3\.\d+(?:\.\d+)?)\0{1,32}Usage: iperf3 /, 0.9)]),
  app('ipmitool', { vendor: 'ipmitool_project', product: 'ipmitool' }, [adjacent('%s version %s\n', '1\\.8\\.\\d+', 0.8, true)], { files: ['ipmitool', 'ipmievd'] }),
  app('gpsd', { vendor: 'gpsd_project', product: 'gpsd' }, [adjacent('%s: %s (revision %s)\n', '3\\.\\d+(?:\\.\\d+)?', 0.8, true)], { files: ['gpsd', 'gpsctl', 'gpspipe', 'gpsmon', 'cgps', 'gpsdctl'] }),
  app('frr', { vendor: 'linuxfoundation', product: 'free_range_routing' }, [banner('FRRouting ', /\0FRRouting (\d+\.\d+(?:\.\d+)?)\0/, 0.9)]),
  app('bird', { vendor: 'nic', product: 'bird' }, [banner('BIRD version ', /\0BIRD version (\d+\.\d+\.\d+)\n?\0/, 0.9)]),
  app('stunnel', { vendor: 'stunnel', product: 'stunnel' }, [banner('stunnel ', /\0stunnel (\d+\.\d+) on [\w.-]+ platform\0/, 0.95)]),
  app('tinyproxy', { vendor: 'tinyproxy_project', product: 'tinyproxy' }, [banner('tinyproxy/', /\0(?:Server|Proxy-agent): tinyproxy\/(1\.\d+\.\d+)\0/, 0.9)]),
  app('privoxy', { vendor: 'privoxy', product: 'privoxy' }, [banner('Privoxy version ', /Privoxy version (3\.\d+\.\d+) \(https?:\/\/www\.privoxy\.org\/\)/, 0.95)]),
  app('memcached', { vendor: 'memcached', product: 'memcached' }, [banner('memcached ', /\0memcached (1\.\d+\.\d+)\0udp-port\0/, 0.9)]),
  app('redis', { vendor: 'redis', product: 'redis' }, [banner(' (git:%s', /\0(\d\.\d+\.\d+)\0 \(git:%s\0-dirty\0/, 0.85)]),
  app('pcsc-lite', { vendor: 'pcsc-lite_project', product: 'pcsc-lite' }, [banner('pcsc-lite ', /pcsc-lite (1\.\d+\.\d+) daemon ready\./, 0.95)]),
  app('gnupg', { vendor: 'gnupg', product: 'gnupg' }, [banner('@GPG@ (@GNUPG@)', /\0@GPG@ \(@GNUPG@\)\0(2\.\d+\.\d+)\0/, 0.9)]),
  app('tor', { vendor: 'torproject', product: 'tor' }, [banner('(on Tor ', /\(on Tor (0\.\d+\.\d+\.\d+) \)\0/, 0.9)]),
  app('apache-httpd', { vendor: 'apache', product: 'http_server' }, [banner('Apache/', /\0Apache\/(2\.\d+\.\d+)(?: \([^)\0]{1,40}\))?\0/, 0.85)], { name: 'apache-httpd' }),
  app('squid', { vendor: 'squid-cache', product: 'squid' }, [banner('squid/', /\0squid\/(\d+\.\d+(?:\.\d+)?)\0/, 0.85, true)], { files: ['squid'] }),
  app('postfix', { vendor: 'postfix', product: 'postfix' }, [banner('mail_version=', /\0mail_version=(\d+\.\d+\.\d+)\0/, 0.9)]),
  app('exim', { vendor: 'exim', product: 'exim' }, [banner('<<eximversion>>', /<<eximcnumber>>\0(4\.\d+(?:\.\d+)?)\0<<eximversion>>/, 0.9)]),
  app('mtr', { vendor: 'bitwizard', product: 'mtr' }, [banner('mtr ', /\0mtr (0\.\d+)\0/, 0.85, true)], { files: ['mtr', 'mtr-packet'] }),
  app('iputils', { vendor: 'iputils_project', product: 'iputils' }, [banner('iputils', /\0(20\d{6})\0iputils\0/, 0.85)]),
  app('net-tools', { vendor: 'net-tools_project', product: 'net-tools' }, [banner('net-tools ', /\0net-tools (\d+\.\d+)\0/, 0.9)]),
  app('traceroute', { vendor: 'traceroute_project', product: 'traceroute' }, [banner('Modern traceroute for Linux, version ', /Modern traceroute for Linux, version (2\.\d+\.\d+)/, 0.95)]),
  app('wireguard-tools', { vendor: 'wireguard', product: 'wireguard-tools' }, [banner('--version', /\0--version\0(1\.0\.20\d{6})\0/, 0.9)]),
  app('open-iscsi', { vendor: 'open-iscsi_project', product: 'open-iscsi' }, [banner('# BEGIN RECORD ', /# BEGIN RECORD (2\.\d+\.\d+)/, 0.9)]),
  app('lftp', { vendor: 'lftp_project', product: 'lftp' }, [banner('lftp/', /\0lftp\/(4\.\d+\.\d+)\0/, 0.9)]),
  app('git', { vendor: 'git-scm', product: 'git' }, [banner('GIT_USER_AGENT', /git\/(2\.\d+\.\d+)\0GIT_USER_AGENT\0/, 0.85)]),
  app('tmux', { vendor: 'tmux_project', product: 'tmux' }, [adjacent('%s: duplicate path: %s', '[1-3]\\.\\d+[a-z]?', 0.85)]),
  app('zsh', { vendor: 'zsh', product: 'zsh' }, [adjacent('zsh %s (%s-%s-%s)\n', '5\\.\\d+(?:\\.\\d+)?', 0.9)]),
  app('networkmanager', { vendor: 'gnome', product: 'networkmanager' }, [banner('NetworkManager (version ', /NetworkManager \(version (1\.\d+\.\d+)\) is starting/, 0.95)]),
  app('modemmanager', undefined, [banner('ModemManager (version ', /ModemManager \(version (1\.\d+\.\d+)\) starting/, 0.95)]),
  app('syslog-ng', { vendor: 'balabit', product: 'syslog-ng' }, [banner('syslog-ng ', /\0syslog-ng \d \((\d+\.\d+\.\d+)\)[\n\0]/, 0.9)]),
  app('nfs-utils', { vendor: 'linux-nfs', product: 'nfs-utils' }, [banner('(linux nfs-utils ', /\(linux nfs-utils (\d+\.\d+\.\d+)\)/, 0.95)]),
  app('iperf', undefined, [banner('iperf version ', /iperf version (2\.\d+\.\d+) \(\d{1,2} [A-Z][a-z]+ \d{4}\)/, 0.95)]),
  app('webfs', undefined, [banner('webfs/', /\0webfs\/(1\.\d+)\0/, 0.9)]),
  app('minicom', undefined, [banner('Minicom', /\0Minicom(2\.\d+(?:\.\d+)?)\0/, 0.85)]),
  app('connman', { vendor: 'intel', product: 'connman' }, [adjacent('GWeb/%s', '1\\.\\d+', 0.85)]),
  app('upower', undefined, [adjacent('Starting upowerd version %s', '0\\.\\d+\\.\\d+', 0.9)]),
  app('picocom', { vendor: 'picocom_project', product: 'picocom' }, [adjacent('picocom v%s\n', '\\d+\\.\\d+', 0.85)]),
  app('knot-resolver', { vendor: 'nic', product: 'knot_resolver' }, [banner('Knot Resolver ', /\0Knot Resolver (\d+\.\d+\.\d+)\0/, 0.9)]),
  app('collectd', { vendor: 'collectd', product: 'collectd' }, [banner('http://collectd.org/', /\ncollectd (5\.\d+\.\d+)(?:\.git)?, http:\/\/collectd\.org\//, 0.95)]),
  app('dovecot', { vendor: 'dovecot', product: 'dovecot' }, [banner('Dovecot v', /Dovecot v(2\.\d+\.\d+(?:\.\d+)?) \([0-9a-f]+\) starting up/, 0.95)]),
  app('ntpsec', { vendor: 'ntpsec', product: 'ntpsec' }, [adjacent('ntpd ntpsec-%s', '1\\.\\d+\\.\\d+', 0.85)]),
];
