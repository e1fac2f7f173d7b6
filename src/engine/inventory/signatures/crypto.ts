// TLS/crypto libraries and SSH/VPN implementations.
import type { VersionSignature } from '../signature.js';
import { adjacent, banner, splitPatch, standalone } from './helpers.js';

export const cryptoSignatures: VersionSignature[] = [
  {
    id: 'openssl',
    name: 'openssl',
    type: 'library',
    cpe: { vendor: 'openssl', product: 'openssl' },
    purl: { name: 'openssl' },
    files: ['libssl.so*', 'libcrypto.so*', 'openssl', 'libeay32.dll', 'ssleay32.dll', 'libssl-*.dll', 'libcrypto-*.dll'],
    // OPENSSL_VERSION_TEXT: 'OpenSSL 1.1.1g  21 Apr 2020', 'OpenSSL 1.0.2c 12 Jun 2015', 'OpenSSL 3.0.2 15 Mar 2022'.
    patterns: [banner('OpenSSL ', /OpenSSL (\d\.\d+\.\d+[a-z]{0,2})(?:-fips|-dev|-beta\d|-pre\d+)?  ?\d{1,2} [A-Z][a-z]{2} \d{4}/, 0.95)],
  },
  {
    id: 'libressl',
    name: 'libressl',
    type: 'library',
    cpe: { vendor: 'openbsd', product: 'libressl' },
    purl: { name: 'libressl' },
    patterns: [banner('LibreSSL ', /\0LibreSSL (\d+\.\d+\.\d+)\0/)],
  },
  {
    id: 'wolfssl',
    name: 'wolfssl',
    type: 'library',
    cpe: { vendor: 'wolfssl', product: 'wolfssl' },
    purl: { name: 'wolfssl' },
    files: ['libwolfssl.so*', 'libcyassl.so*'],
    // 'wolfSSL 5.5.4' (Debian's libwolfssl35); older builds keep LIBWOLFSSL_VERSION_STRING bare.
    patterns: [banner('wolfSSL ', /\0wolfSSL (\d\.\d+\.\d+)\0/, 0.9)],
    standalone: [standalone('wolfSSL', /^\d\.\d+\.\d+$/)],
  },
  {
    id: 'mbedtls',
    name: 'mbedtls',
    type: 'library',
    cpe: { vendor: 'arm', product: 'mbed_tls' },
    purl: { name: 'mbedtls' },
    patterns: [banner('bed TLS ', /[Mm]bed TLS (\d+\.\d+\.\d+)\0/)],
  },
  {
    // BearSSL keeps no version string and has no version API: it is found by its library's name, and Debian's
    // build names the file after the release (libbearssl.so.0.6, SONAME libbearssl.so.0; library-names.ts), and,
    // linked statically, by its constant tables, without a version (bearssl-markers.identifier.ts)
    id: 'bearssl',
    name: 'bearssl',
    type: 'library',
    cpe: { vendor: 'bearssl', product: 'bearssl' },
    purl: { name: 'bearssl' },
    patterns: [],
  },
  {
    id: 'polarssl',
    name: 'polarssl',
    type: 'library',
    cpe: { vendor: 'polarssl', product: 'polarssl' },
    purl: { name: 'polarssl' },
    patterns: [banner('PolarSSL ', /\0PolarSSL (\d+\.\d+\.\d+)\0/)],
  },
  {
    id: 'gnutls',
    name: 'gnutls',
    type: 'library',
    cpe: { vendor: 'gnu', product: 'gnutls' },
    purl: { name: 'gnutls' },
    files: ['libgnutls.so*', 'libgnutls-*.dll'],
    patterns: [],
    standalone: [standalone('GnuTLS', /^3\.\d+\.\d+$/)],
  },
  {
    id: 'libgcrypt',
    name: 'libgcrypt',
    type: 'library',
    cpe: { vendor: 'gnupg', product: 'libgcrypt' },
    purl: { name: 'libgcrypt' },
    files: ['libgcrypt.so*'],
    patterns: [banner('Libgcrypt ', /\0Libgcrypt (1\.\d+\.\d+)(?:-[\w.]+)?\0/, 0.8, true)],
    standalone: [standalone('gcry_', /^1\.\d+\.\d+$/)],
  },
  {
    id: 'dropbear',
    name: 'dropbear',
    type: 'application',
    cpe: { vendor: 'dropbear_ssh_project', product: 'dropbear_ssh' },
    purl: { name: 'dropbear' },
    files: ['dropbear*', 'dbclient'],
    // Identification string 'SSH-2.0-dropbear_2019.78' or the version kept next to 'Dropbear server v%s'.
    patterns: [
      banner('SSH-2.0-dropbear_', /SSH-2\.0-dropbear_(\d{4}\.\d+|0\.\d+)[\0\r\n ]/, 0.95),
      adjacent('Dropbear server v%s', '\\d{4}\\.\\d+|0\\.\\d+'),
      adjacent('Dropbear sshd v%s', '\\d{4}\\.\\d+|0\\.\\d+'),
      adjacent('Dropbear SSH client v%s', '\\d{4}\\.\\d+|0\\.\\d+'),
      adjacent('Dropbear multi-purpose version %s', '\\d{4}\\.\\d+|0\\.\\d+'),
    ],
  },
  {
    id: 'openssh',
    name: 'openssh',
    type: 'application',
    cpe: { vendor: 'openbsd', product: 'openssh' },
    purl: { name: 'openssh' },
    // SSH_RELEASE 'OpenSSH_8.4p1' as a whole string; compat tables ('OpenSSH_2.3.0*,OpenSSH_3.0*') do not match.
    patterns: [banner('OpenSSH_', /\0OpenSSH_(\d+\.\d+(?:\.\d+)?(?:p\d+)?)[\0 ,](?!OpenSSH)/, 0.9)],
    cpeVersion: splitPatch,
  },
  {
    id: 'libssh',
    name: 'libssh',
    type: 'library',
    cpe: { vendor: 'libssh', product: 'libssh' },
    purl: { name: 'libssh' },
    patterns: [banner('SSH-2.0-libssh_', /SSH-2\.0-libssh_(\d+\.\d+\.\d+)\0/), banner('/openssl', /\0(0\.\d+\.\d+)\/(?:openssl|gcrypt|mbedtls)(?:\/zlib)?\0/, 0.8)],
  },
  {
    id: 'libssh2',
    name: 'libssh2',
    type: 'library',
    cpe: { vendor: 'libssh2', product: 'libssh2' },
    purl: { name: 'libssh2' },
    patterns: [banner('SSH-2.0-libssh2_', /SSH-2\.0-libssh2_(\d+\.\d+\.\d+)\0/)],
  },
  {
    id: 'openvpn',
    name: 'openvpn',
    type: 'application',
    cpe: { vendor: 'openvpn', product: 'openvpn' },
    purl: { name: 'openvpn' },
    // 'OpenVPN 2.4.7 mipsel-openwrt-linux-gnu [SSL (OpenSSL)] [LZO] ...'
    patterns: [banner('OpenVPN ', /\0OpenVPN (\d+\.\d+\.\d+)(?:_\w+)? [\w.-]+ \[/)],
  },
  {
    id: 'strongswan',
    name: 'strongswan',
    type: 'application',
    cpe: { vendor: 'strongswan', product: 'strongswan' },
    purl: { name: 'strongswan' },
    // 'Starting IKE charon daemon (strongSwan 5.8.4, Linux ...)'; 'Linux strongSwan U5.8.4/K%s'
    patterns: [banner('(strongSwan ', /\(strongSwan (\d+\.\d+\.\d+)(?:rc\d+|dr\d+)?, /), banner('strongSwan U', /strongSwan U(\d+\.\d+\.\d+)\/K/)],
  },
];
