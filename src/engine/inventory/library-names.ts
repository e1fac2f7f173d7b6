// Shared-library file names and SONAMEs that identify a component family. Some carry the release in the file
// name (libz.so.1.2.11, libc-2.31.so, libuClibc-0.9.33.2.so, libpng16.so.16.37.0); most SONAME versions are ABI
// numbers, not releases, and identify the family only.

export interface LibraryName {
  pattern: RegExp;
  family: string;
  /** Builds the release from the match; absent when the name carries no release. */
  version?: (m: RegExpExecArray) => string;
}

const group = (m: RegExpExecArray): string => m[1];

export const LIBRARY_NAMES: LibraryName[] = [
  { pattern: /^libz\.so\.(1\.\d+\.\d+(?:\.\d+)?)$/, family: 'zlib', version: group },
  { pattern: /^libz\.so(?:\.1)?$/, family: 'zlib' },
  { pattern: /^(?:lib|ld-)uClibc-(0\.9\.\d+(?:\.\d+)?)\.so$/, family: 'uclibc', version: group },
  { pattern: /^(?:lib|ld-)uClibc-(1\.\d+\.\d+)\.so$/, family: 'uclibc-ng', version: group },
  { pattern: /^(?:libc|ld)-(2\.\d+(?:\.\d+)?)\.so$/, family: 'glibc', version: group },
  { pattern: /^libc\.so\.6$/, family: 'glibc' },
  { pattern: /^ld-musl-[\w-]+\.so\.1$|^libc\.musl-[\w-]+\.so\.1$/, family: 'musl' },
  { pattern: /^libpcap\.so\.(1\.\d+\.\d+)$/, family: 'libpcap', version: group },
  { pattern: /^libpcap\.so(?:\.[\d.]+)?$/, family: 'libpcap' },
  { pattern: /^lib(?:ssl|crypto)\.so(?:\.[\d.]+)?$/, family: 'openssl' },
  { pattern: /^libpng(1\d)\.so\.1\d\.(\d+)\.\d+$/, family: 'libpng', version: (m) => `1.${m[1].slice(1)}.${m[2]}` },
  { pattern: /^libpng(?:1\d)?\.so(?:\.[\d.]+)?$/, family: 'libpng' },
  { pattern: /^libxml2\.so\.(2\.\d+\.\d+)$/, family: 'libxml2', version: group },
  { pattern: /^libxml2\.so(?:\.2)?$/, family: 'libxml2' },
  { pattern: /^libexpat\.so(?:\.[\d.]+)?$/, family: 'expat' },
  { pattern: /^libsqlite3\.so(?:\.[\d.]+)?$/, family: 'sqlite' },
  { pattern: /^libcurl\.so(?:\.[\d.]+)?$/, family: 'libcurl' },
  { pattern: /^libmbedtls\.so\.(2\.\d+\.\d+)$/, family: 'mbedtls', version: group },
  { pattern: /^libmbed(?:tls|crypto|x509)\.so(?:\.[\d.]+)?$/, family: 'mbedtls' },
  { pattern: /^lib(?:wolfssl|cyassl)\.so(?:\.[\d.]+)?$/, family: 'wolfssl' },
  { pattern: /^libgnutls\.so(?:\.[\d.]+)?$/, family: 'gnutls' },
  { pattern: /^libbearssl\.so\.(0\.\d+)$/, family: 'bearssl', version: group },
  { pattern: /^libbearssl\.so(?:\.0)?$/, family: 'bearssl' },
  { pattern: /^libgcrypt\.so\.(?:20)\.[\d.]+$|^libgcrypt\.so(?:\.20)?$/, family: 'libgcrypt' },
  { pattern: /^libreadline\.so\.([5-8]\.\d+)$/, family: 'readline', version: group },
  { pattern: /^libncursesw?\.so\.([5-6]\.\d+)$/, family: 'ncurses', version: group },
  { pattern: /^libncursesw?\.so(?:\.[5-6])?$/, family: 'ncurses' },
  { pattern: /^libjson-c\.so(?:\.[\d.]+)?$/, family: 'json-c' },
  { pattern: /^libubox\.so(?:\.[\d.]+)?$/, family: 'libubox' },
  { pattern: /^libubus\.so(?:\.[\d.]+)?$/, family: 'ubus' },
  { pattern: /^libnl-tiny\.so(?:\.[\d.]+)?$/, family: 'libnl-tiny' },
  { pattern: /^libnl-(?:genl-|route-)?3\.so(?:\.[\d.]+)?$/, family: 'libnl' },
  { pattern: /^libgcc_s\.so(?:\.1)?$/, family: 'libgcc' },
  { pattern: /^libevent(?:_core|_extra|_openssl|_pthreads)?(?:-2\.\d)?\.so(?:\.[\d.]+)?$/, family: 'libevent' },
  { pattern: /^libpcre\.so(?:\.[\d.]+)?$/, family: 'pcre' },
  { pattern: /^libpcre2-(?:8|16|32)\.so(?:\.[\d.]+)?$/, family: 'pcre2' },
  { pattern: /^libjansson\.so(?:\.[\d.]+)?$/, family: 'jansson' },
  { pattern: /^libcares\.so(?:\.[\d.]+)?$/, family: 'c-ares' },
  { pattern: /^libnghttp2\.so(?:\.[\d.]+)?$/, family: 'nghttp2' },
  { pattern: /^libssh\.so(?:\.[\d.]+)?$/, family: 'libssh' },
  { pattern: /^libssh2\.so(?:\.[\d.]+)?$/, family: 'libssh2' },
  { pattern: /^libmosquitto\.so(?:\.[\d.]+)?$/, family: 'mosquitto' },
  { pattern: /^liblua(?:5\.\d)?\.so(?:\.[\d.]+)?$/, family: 'lua' },
  { pattern: /^lib(?:ip4tc|ip6tc|iptc|xtables)\.so(?:\.[\d.]+)?$/, family: 'iptables' },
  { pattern: /^libav(?:codec|format|util|filter|device)\.so(?:\.[\d.]+)?$/, family: 'ffmpeg' },
  { pattern: /^libext2fs\.so(?:\.[\d.]+)?$/, family: 'e2fsprogs' },
  { pattern: /^libnetsnmp\.so(?:\.[\d.]+)?$/, family: 'net-snmp' },
  { pattern: /^libpython([23]\.\d+)m?\.so(?:\.[\d.]+)?$/, family: 'python' },
  // Families added for issue #14: the SONAME names the family (ABI numbers only, no release).
  { pattern: /^liblzma\.so(?:\.[\d.]+)?$/, family: 'xz' },
  { pattern: /^libbz2\.so(?:\.[\d.]+)?$/, family: 'bzip2' },
  { pattern: /^liblz4\.so(?:\.[\d.]+)?$/, family: 'lz4' },
  { pattern: /^libzstd\.so(?:\.[\d.]+)?$/, family: 'zstd' },
  { pattern: /^libdbus-1\.so(?:\.[\d.]+)?$/, family: 'dbus' },
  { pattern: /^libarchive\.so(?:\.[\d.]+)?$/, family: 'libarchive' },
  { pattern: /^libtiff\.so(?:\.[\d.]+)?$/, family: 'libtiff' },
  { pattern: /^libsndfile\.so(?:\.[\d.]+)?$/, family: 'libsndfile' },
  { pattern: /^libFLAC\.so(?:\.[\d.]+)?$/, family: 'flac' },
  { pattern: /^libvorbis\.so(?:\.[\d.]+)?$/, family: 'libvorbis' },
  { pattern: /^libsrtp2?\.so(?:\.[\d.]+)?$/, family: 'libsrtp' },
  { pattern: /^libkrb5\.so(?:\.[\d.]+)?$/, family: 'krb5' },
  { pattern: /^lib(?:nss3|nssutil3|smime3|ssl3)\.so(?:\.[\d.]+)?$/, family: 'nss' },
  { pattern: /^libcoap-\d(?:-\w+)?\.so(?:\.[\d.]+)?$/, family: 'libcoap' },
  { pattern: /^libvncserver\.so(?:\.[\d.]+)?$/, family: 'libvncserver' },
  { pattern: /^libpsl\.so(?:\.[\d.]+)?$/, family: 'libpsl' },
  { pattern: /^lib(?:glib|gio|gobject|gmodule|gthread)-2\.0\.so(?:\.[\d.]+)?$/, family: 'glib' },
  { pattern: /^libmagic\.so(?:\.[\d.]+)?$/, family: 'libmagic' },
  { pattern: /^libluajit-5\.1\.so(?:\.[\d.]+)?$/, family: 'luajit' },
  { pattern: /^libtcl8\.\d\.so(?:\.[\d.]+)?$/, family: 'tcl' },
  { pattern: /^liblzo2\.so(?:\.[\d.]+)?$/, family: 'liblzo' },
  { pattern: /^libyaml-0\.so(?:\.[\d.]+)?$/, family: 'libyaml' },
  { pattern: /^libmicrohttpd\.so(?:\.[\d.]+)?$/, family: 'libmicrohttpd' },
  { pattern: /^libspeex\.so(?:\.[\d.]+)?$/, family: 'speex' },
  { pattern: /^libasound\.so(?:\.[\d.]+)?$/, family: 'alsa-lib' },
  { pattern: /^libopenjp2\.so(?:\.[\d.]+)?$/, family: 'openjpeg' },
  { pattern: /^libsodium\.so(?:\.[\d.]+)?$/, family: 'libsodium' },
  { pattern: /^libprotobuf-c\.so(?:\.[\d.]+)?$/, family: 'protobuf-c' },
  { pattern: /^libgd\.so(?:\.[\d.]+)?$/, family: 'libgd' },
  { pattern: /^libharfbuzz\.so(?:\.[\d.]+)?$/, family: 'harfbuzz' },
  { pattern: /^libnfc\.so(?:\.[\d.]+)?$/, family: 'libnfc' },
  { pattern: /^libdb-\d\.\d\.so(?:\.[\d.]+)?$/, family: 'berkeley-db' },
  { pattern: /^liblmdb\.so(?:\.[\d.]+)?$/, family: 'lmdb' },
  { pattern: /^libgdbm\.so(?:\.[\d.]+)?$/, family: 'gdbm' },
  { pattern: /^libsoup-(?:2\.4|3\.0)\.so(?:\.[\d.]+)?$/, family: 'libsoup' },
  { pattern: /^libcups\.so(?:\.[\d.]+)?$/, family: 'libcups' },
  { pattern: /^libopus\.so(?:\.[\d.]+)?$/, family: 'opus' },
  { pattern: /^libvpx\.so(?:\.[\d.]+)?$/, family: 'libvpx' },
  { pattern: /^libmp3lame\.so(?:\.[\d.]+)?$/, family: 'lame' },
  { pattern: /^libev\.so(?:\.[\d.]+)?$/, family: 'libev' },
  { pattern: /^libfaad(?:_drm)?\.so(?:\.[\d.]+)?$/, family: 'faad2' },
  { pattern: /^libgstreamer-1\.0\.so(?:\.[\d.]+)?$/, family: 'gstreamer' },
  { pattern: /^libslang\.so(?:\.[\d.]+)?$/, family: 'slang' },
  { pattern: /^libserialport\.so(?:\.[\d.]+)?$/, family: 'libserialport' },
  { pattern: /^libftdi1\.so(?:\.[\d.]+)?$/, family: 'libftdi' },
  { pattern: /^libminiupnpc\.so(?:\.[\d.]+)?$/, family: 'miniupnpc' },
  { pattern: /^libupnp\.so(?:\.[\d.]+)?$/, family: 'libupnp' },
  { pattern: /^libiperf\.so(?:\.[\d.]+)?$/, family: 'iperf3' },
  { pattern: /^libperl\.so(?:\.[\d.]+)?$/, family: 'perl' },
  { pattern: /^libcap\.so(?:\.[\d.]+)?$/, family: 'libcap' },
  { pattern: /^libruby(?:-\d\.\d)?\.so(?:\.[\d.]+)?$/, family: 'ruby' },
];

export function libraryName(name: string): { family: string; version?: string } | undefined {
  for (const entry of LIBRARY_NAMES) {
    const m = entry.pattern.exec(name);
    if (m) return { family: entry.family, version: entry.version?.(m) };
  }
  return undefined;
}

/**
 * Version-script names a library defines (.gnu.version_d) that only one project uses: they identify the family
 * even when the file was renamed. They bound the release (OPENSSL_1_1_1 means 1.1.1 or later) without fixing it,
 * so they never set a version.
 */
const VERSION_DEFINITIONS: Array<[RegExp, string]> = [
  [/^OPENSSL_(?:1_\d_\d|3\.\d\.\d)$/, 'openssl'],
  [/^GLIBC_2\.\d+$/, 'glibc'],
  [/^ZLIB_1\.\d+(?:\.\d+)*$/, 'zlib'],
  [/^CURL_(?:OPENSSL|GNUTLS|MBEDTLS|WOLFSSL)_\d$/, 'libcurl'],
  [/^LIBSSH2?_\d+(?:_\d+)*$/, 'libssh'],
  [/^PNG16_0$/, 'libpng'],
  [/^XML2_\d+$|^LIBXML2_2\.\d+\.\d+$/, 'libxml2'],
  [/^GCC_\d+\.\d+(?:\.\d+)?$/, 'libgcc'],
  [/^GNUTLS_3_\d+$/, 'gnutls'],
  [/^GCRYPT_1\.\d+$/, 'libgcrypt'],
  [/^MBEDTLS_/, 'mbedtls'],
];

export function familyFromVersionDefinitions(defs: string[]): { family: string; definition: string } | undefined {
  for (const def of defs) for (const [re, family] of VERSION_DEFINITIONS) if (re.test(def)) return { family, definition: def };
  return undefined;
}
