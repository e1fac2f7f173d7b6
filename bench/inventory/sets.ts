// The evaluation sets: real Debian packages (binaries nobody here wrote), and for each the component it must
// yield. `expect` names the component: a version-signature family name, or a purl prefix for ecosystem
// packages. The truth version is the package's own (dpkg-deb -f Version), with the epoch, the Debian revision
// and repack suffixes (+dfsg, +ds, +~cs…) stripped; `version` rewrites it where the product numbers releases
// differently (EDK II '2022.11' is the release tagged edk2-stable202211). Go's standard library version comes
// from the Built-Using field (the golang-1.xx package the binary was linked with).
export interface TruthEntry {
  /** Package name (apt-get download). */
  pkg: string;
  /** Component name, or a purl prefix such as 'pkg:pypi/requests'. */
  expect: string;
  version?: (upstream: string) => string;
  /** Truth from Built-Using's entry for this source package prefix instead of Version. */
  builtUsing?: string;
}

export interface EvaluationSet {
  name: string;
  arch: string;
  entries: TruthEntry[];
}

const SYSTEM: TruthEntry[] = [
  { pkg: 'busybox', expect: 'busybox' },
  { pkg: 'openssl', expect: 'openssl' },
  { pkg: 'libssl3', expect: 'openssl' },
  { pkg: 'zlib1g', expect: 'zlib' },
  { pkg: 'curl', expect: 'curl' },
  { pkg: 'libcurl4', expect: 'libcurl' },
  { pkg: 'dropbear-bin', expect: 'dropbear' },
  { pkg: 'dnsmasq-base', expect: 'dnsmasq' },
  { pkg: 'libsqlite3-0', expect: 'sqlite' },
  { pkg: 'libexpat1', expect: 'expat' },
  { pkg: 'openssh-client', expect: 'openssh' },
  { pkg: 'lighttpd', expect: 'lighttpd' },
  { pkg: 'bash', expect: 'bash' },
  { pkg: 'tcpdump', expect: 'tcpdump' },
  { pkg: 'libpcap0.8', expect: 'libpcap' },
  { pkg: 'libpng16-16', expect: 'libpng' },
  { pkg: 'libgnutls30', expect: 'gnutls' },
  { pkg: 'libgcrypt20', expect: 'libgcrypt' },
  { pkg: 'libssh-4', expect: 'libssh' },
  { pkg: 'libssh2-1', expect: 'libssh2' },
  { pkg: 'hostapd', expect: 'hostapd' },
  { pkg: 'ppp', expect: 'ppp' },
  { pkg: 'libpcre2-8-0', expect: 'pcre2' },
  { pkg: 'mosquitto', expect: 'mosquitto' },
  { pkg: 'openvpn', expect: 'openvpn' },
  { pkg: 'chrony', expect: 'chrony' },
  { pkg: 'unbound', expect: 'unbound' },
  { pkg: 'ethtool', expect: 'ethtool' },
  { pkg: 'e2fsprogs', expect: 'e2fsprogs' },
  { pkg: 'libjson-c5', expect: 'json-c' },
  { pkg: 'lua5.4', expect: 'lua' },
  { pkg: 'libjpeg62-turbo', expect: 'libjpeg-turbo' },
];

export const SETS: EvaluationSet[] = [
  { name: 'system-amd64', arch: 'amd64', entries: SYSTEM },
  { name: 'system-arm64', arch: 'arm64', entries: SYSTEM },
  {
    name: 'languages-amd64',
    arch: 'amd64',
    entries: [
      { pkg: 'python3-requests', expect: 'pkg:pypi/requests' },
      { pkg: 'python3-urllib3', expect: 'pkg:pypi/urllib3' },
      { pkg: 'python3-six', expect: 'pkg:pypi/six' },
      { pkg: 'python3-jinja2', expect: 'pkg:pypi/jinja2' },
      { pkg: 'python3-markupsafe', expect: 'pkg:pypi/markupsafe' },
      { pkg: 'python3-idna', expect: 'pkg:pypi/idna' },
      { pkg: 'python3-certifi', expect: 'pkg:pypi/certifi' },
      { pkg: 'python3-yaml', expect: 'pkg:pypi/pyyaml' },
      { pkg: 'python3.11-minimal', expect: 'python' },
      { pkg: 'node-semver', expect: 'pkg:npm/semver' },
      { pkg: 'node-debug', expect: 'pkg:npm/debug' },
      { pkg: 'node-ms', expect: 'pkg:npm/ms' },
      { pkg: 'node-inherits', expect: 'pkg:npm/inherits' },
      { pkg: 'fzf', expect: 'pkg:golang/stdlib', builtUsing: 'golang-1.' },
    ],
  },
  {
    name: 'firmware',
    arch: 'amd64',
    entries: [
      { pkg: 'ovmf', expect: 'edk2', version: (v) => v.replace('.', '') },
      { pkg: 'u-boot-qemu', expect: 'u-boot' },
      { pkg: 'grub-efi-amd64-bin', expect: 'grub' },
      { pkg: 'seabios', expect: 'seabios' },
      { pkg: 'ipxe-qemu', expect: 'ipxe', version: (v) => v.split('+')[0] },
      { pkg: 'opensbi', expect: 'opensbi' },
    ],
  },
];

/** '1:2.28.1+dfsg-1' → '2.28.1'. */
export function upstreamOf(debianVersion: string): string {
  return debianVersion
    .replace(/^\d+:/, '')
    .replace(/-[^-]*$/, '')
    .replace(/[+~.](?:dfsg|ds|cs|repack|really|git|~)[\w.~+]*$/i, '');
}
