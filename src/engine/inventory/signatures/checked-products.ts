// Products that cve-bin-tool has a checker for and that embedded Linux images ship (network services, system
// tools, libraries), added in issue #14 to reach 300 families. Each form was seen in a real Debian bookworm build
// (see the samples' sources in test/engine/inventory/samples/debian-bookworm.ts); CPE names as NVD gives them.
import type { VersionSignature } from '../signature.js';
import { banner, family, standalone } from './helpers.js';

const app = (id: string, cpe: VersionSignature['cpe'], patterns: VersionSignature['patterns'], extra: Partial<VersionSignature> = {}): VersionSignature =>
  family('application', id, cpe, patterns, extra);
const library = (id: string, cpe: VersionSignature['cpe'], patterns: VersionSignature['patterns'], extra: Partial<VersionSignature> = {}): VersionSignature =>
  family('library', id, cpe, patterns, extra);

export const checkedProductSignatures: VersionSignature[] = [
  // Network services and clients.
  app('rsync', { vendor: 'samba', product: 'rsync' }, [banner('\0copyright\0url\0Copyright %s\n', /\0(3\.\d+\.\d+(?:pre\d+)?)\0copyright\0url\0Copyright %s\n\0/, 0.85)]),
  app('tcpreplay', { vendor: 'broadcom', product: 'tcpreplay' }, [banner(' version: %s (build %s)', /\0(4\.\d+\.\d+)\0{1,16}tcp[a-z-]{3,12} version: %s \(build %s\)\0/, 0.85)]),
  app('sslh', { vendor: 'sslh_project', product: 'sslh' }, [banner('\nusage:\n', /\0sslh v?(\d+\.\d+[a-z]?)(?:-[\w.+~-]+)?\nusage:\n/, 0.9)]),
  app('monit', { vendor: 'tildeslash', product: 'monit' }, [banner("mmonit.com/monit/'>monit ", /mmonit\.com\/monit\/'>monit (5\.\d+\.\d+)<\/a>/, 0.95)]),
  app('msmtp', { vendor: 'marlam', product: 'msmtp' }, [banner('\0Platform: %s\n', /%s version %s\n\0(1\.\d+\.\d+)\0Platform: %s\n\0/, 0.85)]),
  app('mutt', { vendor: 'mutt', product: 'mutt' }, [banner('muttrc-', /\0muttrc-(\d+\.\d+\.\d+)\0/, 0.9), banner('dotlock [Mutt %s', /\0(\d+\.\d+\.\d+)\0dotlock \[Mutt %s \(%s\)\]\n\0/, 0.85)]),
  app('irssi', { vendor: 'irssi', product: 'irssi' }, [banner('irssi ', /\0irssi (\d+\.\d+\.\d+) \(%d %04d\)\n\0/, 0.95)]),
  app('iwd', { vendor: 'intel', product: 'inet_wireless_daemon' }, [banner('iwctl version ', /\0iwctl version (\d+\.\d+)\0/, 0.9)]),
  app('atftp', { vendor: 'atftp_project', product: 'atftp' }, [banner('atftp-%s (server)', /\0(0\.\d+\.\d+)\0atftp-%s \(server\)\n\0/, 0.85)]),
  app('varnish', { vendor: 'varnish-cache', product: 'varnish' }, [banner('Varnish ', /\0Varnish (\d+\.\d+\.\d+) [0-9a-f]{40}\0/, 0.95)]),
  app('zabbix', { vendor: 'zabbix', product: 'zabbix' }, [banner('Zabbix ', /\0Zabbix (\d+\.\d+\.\d+)\0Cannot set cURL option/, 0.9), banner('%s (Zabbix) %s\n', /\0(\d+\.\d+\.\d+)\0%s \(Zabbix\) %s\n\0/, 0.85)]),
  app('ngircd', { vendor: 'barton', product: 'ngircd' }, [banner('ngIRCd\0%s %s-%s\0', /\0ngIRCd\0%s %s-%s\0(\d+(?:\.\d+)?)\0--config\0/, 0.85)]),
  app('nbd', { vendor: 'network_block_device_project', product: 'network_block_device' }, [banner('This is nbd-server version ', /This is nbd-server version (\d+\.\d+(?:\.\d+)?)\0/, 0.95)]),
  app('freeradius', { vendor: 'freeradius', product: 'freeradius' }, [banner('FreeRADIUS Version ', /FreeRADIUS Version (\d+\.\d+\.\d+), for host /, 0.95)]),
  app('davfs2', { vendor: 'werner_baumann', product: 'davfs2' }, [banner('davfs2 ', /\0davfs2 (\d+\.\d+\.\d+)\0/, 0.9)]),
  app('apcupsd', { vendor: 'apcupsd', product: 'apcupsd' }, [banner(' FATAL ERROR in %s at line %d\n', /\0apc(?:upsd|test) FATAL ERROR in %s at line %d\n\0{1,16}apc(?:upsd|test) (\d+\.\d+\.\d+) \(\d{1,2} [A-Z][a-z]+ \d{4}\)/, 0.95)]),
  app('acpid', { vendor: 'tedfelix', product: 'acpid2' }, [banner('acpid-', /\0acpid-(\d+\.\d+\.\d+)\0/, 0.9)]),
  app('i2pd', { vendor: 'i2pd', product: 'i2pd' }, [banner('\0i2pd v\0', /\0i2pd v\0(\d+\.\d+\.\d+)\0\d+\.\d+\.\d+\0\) starting\.\.\.\0/, 0.9)]),
  app('transmission', { vendor: 'transmissionbt', product: 'transmission' }, [banner('Transmission ', /\0Transmission (\d+\.\d+(?:\.\d+)?) \([0-9a-f]{6,12}\)  https:\/\/transmissionbt\.com\//, 0.95)]),
  app('rtl_433', { vendor: 'rtl_433_project', product: 'rtl_433' }, [banner('rtl_433 version ', /rtl_433 version (\d+\.\d+(?:\.\d+)?) \(\d{4}-\d{2}-\d{2}\)/, 0.95)]),
  app('fastd', { vendor: 'fastd_project', product: 'fastd' }, [banner('fastd v', /\0fastd v(\d+(?:\.\d+)?)(?: starting)?\0/, 0.9)]),
  app('bwm-ng', { vendor: 'bwm-ng_project', product: 'bwm-ng' }, [banner('bwm-ng v', /\0bwm-ng v(\d+\.\d+(?:\.\d+)?) \(probing every /, 0.95)]),
  // System and firmware-update tools.
  // 'systemd 252 (252.39-1~deb12u2)\n%s\n' (systemctl --version): the release in parentheses, packaging suffix dropped.
  app('systemd', { vendor: 'systemd_project', product: 'systemd' }, [banner('\0systemd ', /\0systemd \d{3} \((\d{3}(?:\.\d+)?)(?:[-~+][\w.~+-]{0,40})?\)\n%s\n\0/, 0.95)]),
  app('tar', { vendor: 'gnu', product: 'tar' }, [banner('(GNU tar) ', /\((?:GNU )?tar\) (1\.\d+(?:\.\d+)?)\0/, 0.9)]),
  app('kbd', { vendor: 'kbd-project', product: 'kbd' }, [banner('%s from %s\n\0kbd ', /%s from %s\n\0kbd (\d+\.\d+\.\d+)\0/, 0.9)]),
  app('opensc', { vendor: 'opensc_project', product: 'opensc' }, [banner('OpenPGP card utility version ', /openpgp-tool - OpenPGP card utility version (0\.\d+\.\d+)\n/, 0.95), banner('EstEID utility version ', /eidenv - EstEID utility version (0\.\d+\.\d+)\n/, 0.95)]),
  app('nasm', { vendor: 'nasm', product: 'netwide_assembler' }, [banner('The Netwide Assembler ', /\0The Netwide Assembler (\d+\.\d+(?:\.\d+)*)\0/, 0.95)]),
  app('rpm', { vendor: 'rpm', product: 'rpm' }, [banner('rpmpopt-', /\0rpmpopt-(4\.\d+\.\d+(?:\.\d+)?)\0/, 0.9)]),
  app('dpkg', { vendor: 'debian', product: 'dpkg' }, [banner('\0/var/lib/dpkg\0', /\0(1\.\d+\.\d+(?:\.\d+)?) \([a-z0-9-]{3,16}\)\0\/var\/lib\/dpkg\0/, 0.9)]),
  app('rauc', { vendor: 'pengutronix', product: 'rauc' }, [banner('rauc ', /\0rauc (\d+\.\d+(?:\.\d+)?)\n\0Invalid command '%s' given\n/, 0.95)]),
  app('lxc', { vendor: 'linuxcontainers', product: 'lxc' }, [banner('\0lxc.lxcpath\0', /\0(\d+\.\d+\.\d+)\0lxc\.lxcpath\0lxc-autostart\0/, 0.85)]),
  // Libraries: their banners, or the version string next to their own source-file names.
  library('libksba', { vendor: 'gnupg', product: 'libksba' }, [banner('This is Libksba ', /This is Libksba (1\.\d+\.\d+) - An X\.509 and CMS Library\n/, 0.95)]),
  library('gpgme', { vendor: 'gnupg', product: 'gpgme' }, [banner('This is GPGME ', /This is GPGME (1\.\d+\.\d+) - The GnuPG Made Easy library\n/, 0.95)]),
  library('libgit2', { vendor: 'libgit2_project', product: 'libgit2' }, [banner('libgit2 ', /\0libgit2 (\d+\.\d+\.\d+)\0Sending %s request to %s\0/, 0.9)]),
  library('libconfuse', { vendor: 'libconfuse_project', product: 'libconfuse' }, [banner('libConfuse ', /\0libConfuse (\d+\.\d+(?:\.\d+)?) by Martin Hedenfalk/, 0.95)]),
  library('ldns', { vendor: 'nlnetlabs', product: 'ldns' }, [], { files: ['libldns.so*'], standalone: [standalone('ldns_rr_', /^1\.\d+\.\d+$/)] }),
  library('icu', { vendor: 'icu-project', product: 'international_components_for_unicode' }, [banner('\0product.full\0', /\0product\0icu4c\0product\.full\0(\d+\.\d+(?:\.\d+)?)\0version\.unicode\0/, 0.9)]),
  library('fribidi', { vendor: 'gnu', product: 'fribidi' }, [banner('(GNU FriBidi) ', /\(GNU FriBidi\) (\d+\.\d+\.\d+)\ninterface version /, 0.95)]),
  library('unixodbc', { vendor: 'unixodbc', product: 'unixodbc' }, [banner('\0SQLGetEnvAttr.c\0', /\0SQLGetEnvAttr\.c\0(2\.\d+\.\d+)\0/, 0.8)]),
  library('pixman', { vendor: 'pixman', product: 'pixman' }, [banner('pixman/pixman-access.c', /(?<![\d.])(0\.\d+\.\d+)\0\.\.\/\.\.\/pixman\/pixman-access\.c\0/, 0.85)]),
  library('trousers', { vendor: 'trustedcomputinggroup', product: 'trousers' }, [banner('trousers ', /\0trousers (0\.\d+\.\d+)\0/, 0.9)]),
  library('libsolv', { vendor: 'opensuse', product: 'libsolv' }, [], { files: ['libsolv.so*'], standalone: [standalone('solver_solve', /^0\.\d+\.\d+$/)] }),
  library('libmemcached', { vendor: 'awesome', product: 'libmemcached' }, [banner('\0version\r\n\0', /verbosity %u\r\n\0(1\.\d+\.\d+)\0version\r\n\0/, 0.85)]),
  library('libinput', { vendor: 'freedesktop', product: 'libinput' }, [banner('/libinput/doc/', /wayland\.freedesktop\.org\/libinput\/doc\/(1\.\d+\.\d+)\0/, 0.9)]),
];
