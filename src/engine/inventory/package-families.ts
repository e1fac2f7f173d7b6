// Curated mapping from package names (opkg/ipkg, dpkg, apk) to the component families of the signature table,
// which carry the NVD vendor/product names. Only listed packages get a CPE: an unmapped package keeps its purl
// and no CPE, rather than a guessed vendor. Versions are reduced to the upstream release for CPE and merging.
import { buildCpe } from '../cpe.js';
import { signatures } from './signatures/index.js';
import type { VersionSignature } from './signature.js';

const FAMILIES: Array<[RegExp, string]> = [
  [/^busybox(?:-static)?$/, 'busybox'],
  [/^dropbear(?:-bin|-run)?$/, 'dropbear'],
  [/^openssh(?:-server|-client|-sftp-server)?$/, 'openssh'],
  [/^(?:openssl|openssl-util|openssl-libs|libopenssl[\d.]*|libssl[\d.]*|libcrypto[\d.]*)$/, 'openssl'],
  [/^(?:libressl|libressl-util)$/, 'libressl'],
  [/^(?:libwolfssl\d*|wolfssl)$/, 'wolfssl'],
  [/^(?:libmbedtls\d*|mbedtls)$/, 'mbedtls'],
  [/^(?:libgnutls\d*|gnutls)$/, 'gnutls'],
  [/^libgcrypt\d*$/, 'libgcrypt'],
  [/^(?:dnsmasq|dnsmasq-full|dnsmasq-dhcpv6|dnsmasq-base)$/, 'dnsmasq'],
  [/^(?:hostapd|hostapd-\w+|wpad|wpad-\w+)$/, 'hostapd'],
  [/^(?:wpa-supplicant|wpa-supplicant-\w+|wpasupplicant)$/, 'wpa_supplicant'],
  [/^iptables(?:-legacy|-nft)?$/, 'iptables'],
  [/^nftables(?:-json|-nojson)?$/, 'nftables'],
  [/^ppp(?:-multilink)?$/, 'pppd'],
  [/^curl$/, 'curl'],
  [/^libcurl\d*(?:-gnutls|-openssl)?$/, 'libcurl'],
  [/^(?:zlib|zlib1g|libz\d?)$/, 'zlib'],
  [/^libpng[\d-]*$/, 'libpng'],
  [/^libjpeg[\d-]*turbo\d*$/, 'libjpeg-turbo'],
  [/^(?:libjpeg|libjpeg\d+)$/, 'libjpeg'],
  [/^(?:libexpat\d*|expat)$/, 'expat'],
  [/^libxml2(?:-\d+)?$/, 'libxml2'],
  [/^(?:libsqlite3(?:-\d+)?|sqlite3?(?:-cli)?)$/, 'sqlite'],
  [/^lighttpd$/, 'lighttpd'],
  [/^nginx(?:-core|-full|-light|-ssl)?$/, 'nginx'],
  [/^uhttpd$/, 'uhttpd'],
  [/^mini[-_]httpd$/, 'mini_httpd'],
  [/^(?:samba\d*|samba\d*-server)$/, 'samba'],
  [/^miniupnpd(?:-\w+)?$/, 'miniupnpd'],
  [/^(?:avahi-daemon|avahi-\w+-daemon)$/, 'avahi'],
  [/^(?:libc|musl)$/, 'musl'],
  [/^(?:libc6|glibc)$/, 'glibc'],
  [/^(?:uclibc|libuclibc)$/, 'uclibc'],
  [/^(?:libgcc\d*|libgcc-s\d*|libgcc_s)$/, 'libgcc'],
  [/^(?:libncurses[w]?\d*|ncurses|libncursesw?\d+)$/, 'ncurses'],
  [/^libreadline\d*$/, 'readline'],
  [/^bash$/, 'bash'],
  [/^(?:lua|liblua[\d.]*|lua5\.\d)$/, 'lua'],
  [/^php\d?(?:-cli|-cgi|-fpm)?$/, 'php'],
  [/^python3?(?:\.\d+)?(?:-base|-light|-minimal)?$/, 'python'],
  [/^perl(?:-base)?$/, 'perl'],
  [/^(?:node|nodejs)$/, 'nodejs'],
  [/^(?:e2fsprogs|libext2fs\d*)$/, 'e2fsprogs'],
  [/^(?:mtd-utils|ubi-utils)$/, 'mtd-utils'],
  [/^openvpn(?:-\w+)?$/, 'openvpn'],
  [/^strongswan(?:-full|-minimal|-default)?$/, 'strongswan'],
  [/^(?:ntpd|ntp|ntpdate|sntp)$/, 'ntp'],
  [/^chrony$/, 'chrony'],
  [/^(?:bind|bind-server|bind9|bind-tools|bind-libs)$/, 'bind'],
  [/^(?:unbound|unbound-daemon|libunbound\d*)$/, 'unbound'],
  [/^(?:snmpd|net-snmp|libnetsnmp\d*)$/, 'net-snmp'],
  [/^vsftpd(?:-tls)?$/, 'vsftpd'],
  [/^proftpd(?:-basic|-core)?$/, 'proftpd'],
  [/^pure-ftpd$/, 'pure-ftpd'],
  [/^(?:ip|ip-full|ip-tiny|iproute2)$/, 'iproute2'],
  [/^ethtool(?:-full)?$/, 'ethtool'],
  [/^tcpdump(?:-mini)?$/, 'tcpdump'],
  [/^libpcap[\d.]*$/, 'libpcap'],
  [/^nmap(?:-full|-ssl)?$/, 'nmap'],
  [/^ncat(?:-full|-ssl)?$/, 'ncat'],
  [/^(?:libjson-c\d*|json-c)$/, 'json-c'],
  [/^libubox\d*$/, 'libubox'],
  [/^(?:ubus|ubusd|libubus\d*)$/, 'ubus'],
  [/^procd(?:-ujail|-seccomp)?$/, 'procd'],
  [/^netifd$/, 'netifd'],
  [/^(?:opkg|libopkg\d*)$/, 'opkg'],
  [/^libnl-tiny\d*$/, 'libnl-tiny'],
  [/^libnl(?:-3-\d+|\d*)$/, 'libnl'],
  [/^libevent2?(?:-\d+)?(?:-core\d*)?$/, 'libevent'],
  [/^libpcre\d*$/, 'pcre'],
  [/^libpcre2(?:-\d+-\d+)?$/, 'pcre2'],
  [/^(?:jansson|libjansson\d*)$/, 'jansson'],
  [/^(?:c-ares|libcares\d*)$/, 'c-ares'],
  [/^(?:nghttp2|libnghttp2-?\d*)$/, 'nghttp2'],
  [/^(?:libssh|libssh-\d+)$/, 'libssh'],
  [/^libssh2(?:-\d+)?$/, 'libssh2'],
  [/^(?:mosquitto|libmosquitto\d*|mosquitto-ssl|mosquitto-nossl)$/, 'mosquitto'],
  [/^(?:live555|liblivemedia\d*)$/, 'live555'],
  [/^(?:ffmpeg|libffmpeg(?:-\w+)?)$/, 'ffmpeg'],
  [/^(?:kernel|linux|linux-image-[\w.-]+)$/, 'linux-kernel'],
  [/^(?:uboot-envtools|u-boot-tools)$/, 'u-boot'],
  [/^grub(?:2|-pc|-efi[\w-]*)?$/, 'grub'],
];

const BY_ID = new Map(signatures.map((s) => [s.id, s]));

export function familyOf(packageName: string): VersionSignature | undefined {
  const name = packageName.toLowerCase();
  for (const [re, id] of FAMILIES) if (re.test(name)) return BY_ID.get(id);
  return undefined;
}

export function familyById(id: string): VersionSignature | undefined {
  return BY_ID.get(id);
}

/**
 * The upstream release inside a package version: epoch, packaging revision and VCS suffixes removed
 * ('1:2.31-0ubuntu9' → '2.31', '2019.78-5' → '2019.78', '1.31.1-r9' → '1.31.1', '5.4.43-1-8b3a…' → '5.4.43',
 * '2.4.8.git-2020-05-25-2' → '2.4.8'); undefined for date snapshots ('2020-05-07-f2166a89-1').
 */
export function upstreamVersion(version: string): string | undefined {
  const v = version.replace(/^\d+:/, '');
  const m = /^(\d+(?:\.\d+)+(?:[a-z](?![a-z])|p\d+)?)(?=$|[-+~_.])/.exec(v);
  return m ? m[1] : undefined;
}

/** The CPE of a packaged family at an upstream version (none without a mapped family or a release number). */
export function familyCpe(family: VersionSignature | undefined, upstream: string | undefined): string | undefined {
  if (!family?.cpe || !upstream) return undefined;
  const v = family.cpeVersion ? family.cpeVersion(upstream) : { version: upstream };
  return buildCpe({ ...family.cpe, version: v.version, update: 'update' in v ? v.update : undefined });
}
