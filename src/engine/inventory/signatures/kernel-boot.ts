// Kernels, bootloaders and platform firmware cores.
import type { VersionSignature } from '../signature.js';
import { EDK2_RELEASE_COMMITS } from './edk2-releases.js';
import { adjacent, banner, gitDescribeBase, sbatLine, standalone } from './helpers.js';

export const kernelBootSignatures: VersionSignature[] = [
  {
    id: 'linux-kernel',
    name: 'linux',
    type: 'operating-system',
    cpe: { part: 'o', vendor: 'linux', product: 'linux_kernel' },
    purl: { name: 'linux' },
    // 'Linux version 5.4.43 (builder@buildhost) (gcc version 8.4.0 ...) #0 SMP ...'; '%s' formats and prose do not match.
    // Distribution kernels name an ABI release ('6.1.0-50-armmp', '5.15.0-91-generic') and give the upstream
    // release after the build number: '#1 SMP Debian 6.1.176-1 (2025-…)' (a second copy of the banner has no number:
    // '# SMP PREEMPT_DYNAMIC Debian 6.1.192-3'), '#101-Ubuntu SMP … (Ubuntu
    // 5.15.0-91.101-generic 5.15.131)'. That upstream release is what kernel CVE ranges are written against; the
    // ABI/localversion stays in the evidence (the whole banner).
    patterns: [
      banner('Linux version ', /Linux version (\d+\.\d+(?:\.\d+)?)[^\0\s]* \([^\0()]*@[^\0()]*\)(?![^\0]*#\d*[^\0]*(?:SMP|PREEMPT)[^\0]* Debian \d|[^\0]*#\d+-Ubuntu[^\0]*\(Ubuntu [^\0)]* \d)/, 0.95),
      banner('Linux version ', /Linux version \d+\.\d+[^\0\s]* \([^\0()]*@[^\0()]*\)[^\0]*?#\d* [^\0]*?Debian (\d+\.\d+(?:\.\d+)?)(?:[-~+][\w.~+-]*)?(?= \(|\0|\n|$)/, 0.97),
      banner('Linux version ', /Linux version \d+\.\d+[^\0\s]* \([^\0()]*@[^\0()]*\)[^\0]*?#\d+-Ubuntu [^\0]*?\(Ubuntu [^\0)\s]+ (\d+\.\d+\.\d+)\)/, 0.97),
    ],
  },
  {
    id: 'u-boot',
    name: 'u-boot',
    type: 'firmware',
    cpe: { vendor: 'denx', product: 'u-boot' },
    purl: { name: 'u-boot' },
    // 'U-Boot 2015.01 (Sep 21 2015 - 10:49:17)', 'U-Boot SPL 2018.03-rc1 (Mar 01 2018 ...)', 'U-Boot 1.1.3 (Jan  5 2010 ...)'
    patterns: [banner('U-Boot ', /U-Boot(?: SPL| TPL)? (\d{4}\.\d{2}(?:\.\d+)?|1\.\d+\.\d+)(?:[-+][\w.+-]*)? \((?:[A-Z][a-z]{2} [ \d]\d \d{4}|\d{2}\/\d{2}\/\d{4})/, 0.95)],
  },
  {
    id: 'barebox',
    name: 'barebox',
    type: 'firmware',
    purl: { name: 'barebox' },
    // 'barebox 2020.05.0-00001-gabcdef #1 Mon May 4 ...'
    patterns: [banner('barebox ', /\0barebox (20\d{2}\.\d{2}\.\d+)(?:-[\w.-]+)? #\d+ /)],
  },
  {
    id: 'redboot',
    name: 'redboot',
    type: 'firmware',
    purl: { name: 'redboot' },
    // 'RedBoot(tm) bootstrap and debug environment [ROMRAM]\nNon-certified release, version v2_0 - built ...'
    patterns: [banner('release, version ', /release, version (?:UNKNOWN|v(\d+_\d+(?:_\d+)?)) - built/)],
    normalize: (v) => v.replace(/_/g, '.'),
  },
  {
    id: 'cfe',
    name: 'cfe',
    type: 'firmware',
    supplier: 'Broadcom',
    purl: { name: 'cfe', namespace: 'broadcom' },
    // Broadcom Common Firmware Environment: 'CFE version 1.0.37-108.9 for BCM96362 (32bit,SP,BE)'
    patterns: [banner('CFE version ', /CFE version (\d+\.\d+\.\d+(?:-[\d.]+)?) for BCM/)],
  },
  {
    id: 'grub',
    name: 'grub',
    type: 'firmware',
    cpe: { vendor: 'gnu', product: 'grub2' },
    purl: { name: 'grub' },
    patterns: [
      banner('GNU GRUB  version ', /GNU GRUB  version (2\.\d+(?:[~.][\w]+)?)[\0\n ]/),
      adjacent('GNU GRUB  version %s', '2\\.\\d+(?:[~.]\\w+)?'),
      // Distribution builds: PACKAGE_VERSION carries the package revision ('2.06-13+deb12u2' in normal.mod).
      banner('GNU GRUB  version %s', /GNU GRUB  version %s\0{1,16}(2\.\d+(?:[~.]\w+)?)-[\w.+~]+\0/, 0.85),
      // The EFI image's SBAT section: 'grub,5,Free Software Foundation,grub,2.06,https://www.gnu.org/software/grub/'.
      banner(',grub,', sbatLine('grub', '2\\.\\d+(?:\\.\\d+)?'), 0.95),
    ],
  },
  {
    id: 'coreboot',
    name: 'coreboot',
    type: 'firmware',
    cpe: { vendor: 'coreboot', product: 'coreboot' },
    purl: { name: 'coreboot' },
    // 'This image was built using coreboot 4.8-1521-gfc7d0199cb' (the CBFS 'revision' file and the romstage banner).
    patterns: [banner('built using coreboot ', /built using coreboot (\d+\.\d+(?:\.\d+)?(?:-\d+-g[0-9a-f]{7,12})?)[\0\s]/, 0.95), banner('COREBOOT_VERSION "', /#define COREBOOT_VERSION "(\d+\.\d+(?:\.\d+)?(?:-\d+-g[0-9a-f]{7,12})?)"/, 0.95)],
    cpeVersion: gitDescribeBase,
  },
  {
    id: 'seabios',
    name: 'seabios',
    type: 'firmware',
    cpe: { vendor: 'seabios', product: 'seabios' },
    purl: { name: 'seabios' },
    files: ['bios*.bin', 'vgabios*.bin', '*seabios*'],
    // The build's VERSION string stands alone ('rel-1.16.2-0-gea1b7a0', Debian '1.16.2-debian-1.16.2-1'), the
    // log format 'SeaBIOS (version %s)' elsewhere in the image.
    patterns: [banner('SeaBIOS (version ', /SeaBIOS \(version (?:rel-)?(1\.\d+\.\d+)[-\w.~+]*\)/, 0.95)],
    // SeaVGABIOS, the VGA option ROMs built from SeaBIOS's tree, logs 'Start SeaVGABIOS (version %s)'.
    standalone: [
      standalone('SeaBIOS (version %s)', /^(?:rel-)?1\.\d+\.\d+(?:-[\w.~+-]+)?$/, 0.8),
      standalone('SeaVGABIOS (version %s)', /^(?:rel-)?1\.\d+\.\d+(?:-[\w.~+-]+)?$/, 0.8),
    ],
    normalize: (v) => /^(?:rel-)?(\d+\.\d+\.\d+)/.exec(v)?.[1] ?? v,
  },
  {
    id: 'edk2',
    name: 'edk2',
    type: 'firmware',
    cpe: { vendor: 'tianocore', product: 'edk2' },
    purl: { name: 'edk2' },
    // '2022.11' → '202211'; a commit → the release tagged on it, else no version ('' is dropped).
    normalize: (v) => (/^[0-9a-f]{12}$/.test(v) ? (EDK2_RELEASE_COMMITS[v] ?? '') : v.replace('.', '')),
    // EDK II carries no release number; the release shows in the build paths left in every module: the stable
    // tag ('/edk2-stable202211/'), Debian's source folder ('/build/edk2-2022.11/'), or a tagged commit
    // ('/builddir/build/BUILD/edk2-f80f052277c8/', Fedora). The version is the tag's date, as NVD writes it.
    patterns: [
      banner('edk2-stable', /[/\\]edk2-stable(\d{6})(?:\.\d+)?[/\\]/, 0.85),
      banner('/edk2-20', /\/edk2-(20\d{2}\.\d{2})(?:[-~+.][\w.~+-]*)?\/(?:[\w.-]+\/)*[\w-]+Pkg\//, 0.85),
      banner('/edk2-', /\/edk2-([0-9a-f]{12})[0-9a-f]*\/(?:[\w.-]+\/)*[\w-]+Pkg\//, 0.85),
      { needle: 'E\0D\0K\0 \0I\0I\0', regex: /E\0D\0K\0 \0I\0I\0\0\0/, presence: true, confidence: 0.7 },
      { needle: '/MdePkg/Library/', regex: /\/edk2[-\w]*\/MdePkg\/Library\//, presence: true, confidence: 0.7 },
    ],
  },
  {
    id: 'intel-fsp',
    name: 'intel-fsp',
    type: 'firmware',
    purl: { name: 'intel-fsp', namespace: 'intel' },
    // FSP_INFO_HEADER: 'FSPH', length 0x48, reserved, spec version, header revision, ImageRevision (LE), ImageId.
    patterns: [{ needle: 'FSPH', regex: /FSPH\x48\0\0\0\0\0[\x10-\x2f][\x01-\x07]([\s\S]{4})\$[A-Z0-9]{3,6}FSP\$/, confidence: 0.9 }],
    normalize: (raw) => {
      const v = Buffer.from(raw, 'latin1');
      return v.length === 4 ? `${v[3]}.${v[2]}.${v[1]}.${v[0]}` : raw;
    },
  },
  {
    id: 'ami-aptio',
    name: 'aptio',
    type: 'firmware',
    supplier: 'American Megatrends',
    firmwareOnly: true,
    purl: { name: 'aptio', namespace: 'ami' },
    patterns: [
      { needle: 'American Megatrends', regex: /American Megatrends(?: Inc\.|, Inc\.)?/, presence: true, confidence: 0.6 },
      { needle: 'A\0m\0e\0r\0i\0c\0a\0n\0 \0M\0e\0g\0a\0t\0r\0e\0n\0d\0s\0', regex: /A\0m\0e\0r\0i\0c\0a\0n\0 \0M\0e\0g\0a\0t\0r\0e\0n\0d\0s\0/, presence: true, confidence: 0.6 },
    ],
  },
  {
    id: 'insyde-h2o',
    name: 'insydeh2o',
    type: 'firmware',
    supplier: 'Insyde Software',
    firmwareOnly: true,
    cpe: { vendor: 'insyde', product: 'insydeh2o' },
    purl: { name: 'insydeh2o', namespace: 'insyde' },
    patterns: [banner('InsydeH2O Version ', /InsydeH2O Version (\d{2}\.\d{2}\.\d{2}\.\d{4})/), { needle: 'I\0n\0s\0y\0d\0e\0H\x002\0O\0', regex: /I\0n\0s\0y\0d\0e\0H\x002\0O\0/, presence: true, confidence: 0.6 }],
  },
  {
    id: 'phoenix-securecore',
    name: 'securecore',
    type: 'firmware',
    supplier: 'Phoenix Technologies',
    firmwareOnly: true,
    purl: { name: 'securecore', namespace: 'phoenix' },
    patterns: [{ needle: 'Phoenix SecureCore', regex: /Phoenix SecureCore(?: Technology| Tiano)?/, presence: true, confidence: 0.6 }, { needle: 'PhoenixBIOS', regex: /PhoenixBIOS 4\.0 Release \d\.\d/, presence: true, confidence: 0.6 }],
  },
];
