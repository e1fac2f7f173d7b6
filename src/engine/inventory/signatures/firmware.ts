// Boot and security firmware beside the bootloaders (SBAT-named UEFI components, TF-A, iPXE) and RTOS kernels
// in device firmware blobs. The forms come from real builds or, where no build was at hand (OP-TEE, Zephyr, NuttX,
// Contiki, RIOT, VxWorks, lwIP's httpd), from the upstream format strings; the samples say which.
import { describeFormatCall, formatCallArgs, type FormatCall } from '../../binaries/format-call-args.js';
import { riscvCallsWithString } from '../../binaries/riscv-args.js';
import type { VersionSignature } from '../signature.js';
import { banner, sbatLine, standalone } from './helpers.js';

/**
 * OpenSBI prints its banner from integers (`sbi_printf("\nOpenSBI v%d.%d\n", OPENSBI_VERSION_MAJOR, OPENSBI_VERSION_MINOR)`):
 * the release is the pair of `li a1`/`li a2` at the one call that passes the banner's address. Several calls
 * with different pairs, or none, give no version.
 */
function openSbiBannerVersion(data: Buffer, at: number): { version: string; detail: string } | undefined {
  const pairs = new Map<string, number>();
  for (const call of riscvCallsWithString(data, at)) {
    const major = call.args.get(11);
    const minor = call.args.get(12);
    if (major === undefined || minor === undefined || major < 0 || minor < 0) continue;
    pairs.set(`${major}.${minor}`, call.at);
  }
  if (pairs.size !== 1) return undefined;
  const [[version, code]] = pairs;
  return { version, detail: `li a1, ${version.split('.')[0]}; li a2, ${version.split('.')[1]} at the call ${at - code} bytes before` };
}

/**
 * eCos prints its release from integers (a vendor shell's `print_build_tag`:
 * `printf("eCos Release: %d.%d.%d\n", CYGNUM_HAL_VERSION_MAJOR, …_MINOR, …_RELEASE)`): the release is the three
 * constants in the argument registers after the format string's address at the call that passes it (MIPS32 either
 * byte order, ARM, Thumb; format-call-args.ts). A major of 1-9 and a minor and release of 0-99 are accepted; several
 * calls with different triples, or none, give no version. Reading the address of a raw image needs its load
 * address inferred, so the version is trusted below a printed one.
 */
function ecosReleaseFromCode(data: Buffer, at: number, chunkOffset: number): { version: string; detail: string; confidence: number } | undefined {
  const releases = new Map<string, FormatCall>();
  for (const call of formatCallArgs(data, at, { count: 3 })) {
    const [major, minor, release] = call.args;
    if (major === undefined || minor === undefined || release === undefined) continue;
    if (major < 1 || major > 9 || minor < 0 || minor > 99 || release < 0 || release > 99) continue;
    releases.set(`${major}.${minor}.${release}`, call);
  }
  if (releases.size !== 1) return undefined;
  const [[version, call]] = releases;
  return { version, detail: describeFormatCall(call, chunkOffset), confidence: 0.8 };
}

export const firmwareSignatures: VersionSignature[] = [
  {
    id: 'shim',
    name: 'shim',
    type: 'firmware',
    cpe: { vendor: 'redhat', product: 'shim' },
    purl: { name: 'shim' },
    // shim's own line carries no release ('shim,4,UEFI shim,shim,1,…'); the vendor line does: 'shim.debian,1,Debian,shim,16.1,…'.
    patterns: [banner(',shim,', sbatLine('shim', '\\d+\\.\\d+(?:\\.\\d+)?'), 0.95)],
  },
  {
    id: 'systemd-boot',
    name: 'systemd-boot',
    type: 'firmware',
    cpe: { vendor: 'systemd_project', product: 'systemd' },
    purl: { name: 'systemd-boot' },
    // systemd-boot and the EFI stub: 'systemd,1,The systemd Developers,systemd,252,…' and the distribution line
    // 'systemd.debian,1,Debian GNU/Linux,systemd,252.39-1~deb12u2,…': the point release comes from the distribution
    // line (an upstream-only SBAT, not seen in a real build yet, is not claimed).
    patterns: [
      banner(',systemd,', /\nsystemd,\d{1,4},[^,\n\0]{1,80},systemd,\d{3},https?:[^,\n\0]{1,200}\n[a-z][\w.-]{0,40},\d{1,4},[^,\n\0]{1,80},systemd,(\d{3}(?:\.\d+)?)(?:[-+~][\w.+~-]*)?,[a-z]+:/, 0.95),
    ],
  },
  {
    id: 'trusted-firmware-a',
    name: 'trusted-firmware-a',
    type: 'firmware',
    cpe: { vendor: 'arm', product: 'trusted_firmware-a' },
    purl: { name: 'trusted-firmware-a', namespace: 'arm' },
    // version_string and build_message of BL1/BL2/BL31 ('NOTICE:  BL31: %s' prints them): 'v2.8(release):\0Built : 06:31:44, Nov 25 2022'.
    // Both build types occur in Debian's arm-trusted-firmware (g12a's bl31.bin is a debug build).
    patterns: [
      banner('(release):', /\0v(\d+\.\d+(?:\.\d+)?)\(release\):[^\0]{0,64}\0Built : \d{2}:\d{2}:\d{2}, [A-Z][a-z]{2} [ \d]\d \d{4}/, 0.95),
      banner('(debug):', /\0v(\d+\.\d+(?:\.\d+)?)\(debug\):[^\0]{0,64}\0Built : \d{2}:\d{2}:\d{2}, [A-Z][a-z]{2} [ \d]\d \d{4}/, 0.95),
    ],
  },
  {
    id: 'opensbi',
    name: 'opensbi',
    type: 'firmware',
    cpe: { vendor: 'opensbi_project', product: 'opensbi' },
    purl: { name: 'opensbi' },
    // The boot banner's format string is OpenSBI's own (presence); its version comes from the code that prints it.
    patterns: [{ needle: '\nOpenSBI v%d.%d\n', regex: /\nOpenSBI v%d\.%d\n\0/, presence: true, confidence: 0.7, fromCode: openSbiBannerVersion }],
  },
  {
    id: 'ipxe',
    name: 'ipxe',
    type: 'firmware',
    cpe: { vendor: 'ipxe', product: 'ipxe' },
    purl: { name: 'ipxe' },
    // product_name and product_version kept together: 'iPXE\0\0\0001.0.0+git-20190125.36a4c85-5.1' (Debian's
    // snapshot; the package revision is dropped). The CPE takes the release before '+'.
    // The EFI driver inside an option ROM keeps them 12 NULs apart ('82540em.efidrv\0iPXE\0…\0001.0.0+git-…');
    // legacy ROMs compress everything but their PnP product string 'iPXE (http://ipxe.org)' (presence only).
    patterns: [
      banner('\0iPXE\0', /\0iPXE\0{1,16}(\d+\.\d+\.\d+(?:\+git-\d{8}\.[0-9a-f]{7,12})?)(?:[-+ ][^\0]{0,40})?\0/, 0.9),
      { needle: 'iPXE (http://ipxe.org)', regex: /[\0\n]iPXE \(http:\/\/ipxe\.org\)[\0\r\n ]/, presence: true, confidence: 0.7 },
    ],
    cpeVersion: (v) => ({ version: v.replace(/\+.*$/, '') }),
  },
  // Firmware of QEMU's other machines (Debian's qemu-system-data builds them from QEMU's roms/): no NVD product
  // names them, so no CPE.
  {
    id: 'slof',
    name: 'slof',
    type: 'firmware',
    purl: { name: 'slof' },
    // SLOF (Slimline Open Firmware, pSeries) boot banner: ' FW Version = release 20220719\r\n'; releases are dates.
    patterns: [banner('FW Version = release ', /Build Date = [A-Z][a-z]{2} [ \d]\d \d{4} \d{2}:\d{2}:\d{2}\r?\n FW Version = release (\d{8})\r?\n/, 0.9)],
  },
  {
    id: 'openbios',
    name: 'openbios',
    type: 'firmware',
    purl: { name: 'openbios' },
    // The PowerPC build's banner format keeps the release literally: 'OpenBIOS 1.1 [%s]\n' (the build date is %s).
    patterns: [banner('OpenBIOS ', /\0OpenBIOS (\d+\.\d+(?:\.\d+)?) \[%s\]\n\0/, 0.9)],
  },
  {
    id: 'skiboot',
    name: 'skiboot',
    type: 'firmware',
    purl: { name: 'skiboot' },
    files: ['skiboot*'],
    // OPAL firmware (POWER): the release is a bare 'v7.0' string; the version check message marks skiboot itself.
    patterns: [],
    standalone: [standalone('Skiboot version does not match VERSION partition', /v\d+\.\d+(?:\.\d+)?(?:-rc\d+)?/, 0.6)],
    normalize: (v) => v.replace(/^v/, ''),
  },
  // Boot programs of PCs and servers beside the firmware (Debian bookworm's syslinux, pxelinux, isolinux and
  // memtest86+ packages). No NVD product names either, so no CPE.
  {
    id: 'syslinux',
    name: 'syslinux',
    type: 'firmware',
    purl: { name: 'syslinux' },
    // Each loader's banner: 'ISOLINUX 6.04 20200816 ', 'PXELINUX 6.04 PXE 20200816 ', 'SYSLINUX 6.04 EDD 20200816'
    // (also inside the syslinux and extlinux installers, which carry the ldlinux.sys they write), and MEMDISK's
    // 'MEMDISK 6.04 20200816'; the date is the build's, the release before it.
    patterns: [
      ...['ISOLINUX', 'PXELINUX', 'SYSLINUX', 'EXTLINUX'].map((loader) => banner(`${loader} `, new RegExp(`${loader} (\\d+\\.\\d+) (?:(?:PXE|EDD|EFI) )?20\\d{6}[ \\0]`), 0.9)),
      banner('MEMDISK ', /\0MEMDISK (\d+\.\d+) 20\d{6}\0/, 0.9),
    ],
  },
  {
    id: 'memtest86+',
    name: 'memtest86+',
    type: 'firmware',
    purl: { name: 'memtest86+' },
    // The screen's title, kept as a string of its own: 'Memtest86+ v6.10' (releases before 6 had no 'v': '5.31b').
    patterns: [banner('Memtest86+ ', /\0 {0,8}Memtest86\+ v?(\d+\.\d+[a-z]?)\0/, 0.9)],
  },
  {
    id: 'threadx',
    name: 'threadx',
    type: 'operating-system',
    cpe: { part: 'o', vendor: 'microsoft', product: 'azure_rtos_threadx' },
    purl: { name: 'threadx' },
    // The kernel's copyright banner in Wi-Fi and GPU firmware: 'Copyright (c) 1996-2010 Express Logic Inc. *
    // ThreadX Cortex-M3/RVDS Version G5.3.5.2  SN: …'. The 'G' is the build generation letter, not part of NVD's version.
    patterns: [banner('* ThreadX', /Express Logic Inc\. \* ThreadX[ /][^\0*]{1,60}? Version G(\d+\.\d+(?:\.\d+){0,2})(?: \(SP\d+\))? +SN: /, 0.95)],
  },
  {
    id: 'freertos',
    name: 'freertos',
    type: 'operating-system',
    cpe: { part: 'o', vendor: 'amazon', product: 'freertos' },
    purl: { name: 'freertos' },
    // Assertion paths of the kernel sources kept in the firmware: 'coe/kernel/FreeRTOSv10.0.0/timers.c' (MediaTek MT7915).
    patterns: [banner('/FreeRTOSv', /\/FreeRTOSv(\d+\.\d+\.\d+)\/(?:[\w.-]+\/){0,6}[\w.-]+\.[ch]\0/, 0.85)],
  },
  {
    id: 'op-tee',
    name: 'op-tee',
    type: 'operating-system',
    cpe: { part: 'o', vendor: 'linaro', product: 'op-tee' },
    purl: { name: 'optee_os', namespace: 'op-tee' },
    // core_v_str, generated by optee_os's core/arch/*/kernel/link.mk and printed as 'OP-TEE version: %s':
    // '<TEE_IMPL_VERSION> (<the compiler's `-v` version line>) #<build count> <date -u> <arch>'. TEE_IMPL_VERSION is
    // `git describe` ('4.0.0', '3.20.0-rc1', '3.22.0-12-g1a2b3c4', '-dev' when dirty) or, outside git,
    // 'Unknown_<major>.<minor>'. Builds older than 3.x without the compiler part are not claimed.
    patterns: ['gcc', 'clang'].map((cc) => banner(` (${cc} version `,
      new RegExp(`\\0(?:(\\d+\\.\\d+\\.\\d+(?:-rc\\d+)?)(?:-\\d+-g[0-9a-f]{7,40})?(?:-dev)?|Unknown_(\\d+\\.\\d+)[\\w.-]{0,20}) \\(${cc} version [^\\0]{1,240}?\\) #\\d+ [A-Z][a-z]{2} [A-Z][a-z]{2} [ \\d]\\d \\d{2}:\\d{2}:\\d{2} UTC \\d{4} (?:aarch64|arm|riscv)\\0`), 0.9)),
  },
  {
    id: 'zephyr',
    name: 'zephyr',
    type: 'operating-system',
    cpe: { part: 'o', vendor: 'zephyrproject', product: 'zephyr' },
    purl: { name: 'zephyr', namespace: 'zephyrproject-rtos' },
    // The kernel's boot banner, one literal (kernel/banner.c, init.c before 3.6): '*** Booting Zephyr OS build
    // <BANNER_VERSION> ***' where BANNER_VERSION is `git describe` of the Zephyr tree ('v3.5.0', 'zephyr-v3.4.0',
    // 'v3.5.0-rc2-331-gb7a06954094c') or KERNEL_VERSION_STRING ('3.5.0'); 2.x builds used five stars.
    patterns: [banner('Booting Zephyr OS build ', /\*{3,5} Booting Zephyr OS build (?:zephyr-)?v?(\d+\.\d+\.\d+(?:-rc\d+)?)(?:-\d+-g[0-9a-f]{7,40})?[^\0*\n]{0,60} \*{3,5}\r?\n?\0/, 0.85)],
  },
  {
    id: 'nuttx',
    name: 'nuttx',
    type: 'operating-system',
    cpe: { part: 'o', vendor: 'apache', product: 'nuttx' },
    purl: { name: 'nuttx', namespace: 'apache' },
    // NSH's greeting when the build has a release (nuttx-apps nshlib/nsh_parse.c, g_nshgreeting):
    // '\nNuttShell (NSH) NuttX-' CONFIG_VERSION_STRING '\n'; without one it is '\nNuttShell (NSH)\n' (no version).
    patterns: [banner('NuttShell (NSH) NuttX-', /\0\nNuttShell \(NSH\) NuttX-(\d+\.\d+(?:\.\d+)?)(?:-RC\d+)?\n\0/, 0.9)],
  },
  {
    id: 'contiki-ng',
    name: 'contiki-ng',
    type: 'operating-system',
    cpe: { part: 'o', vendor: 'contiki-ng', product: 'contiki-ng' },
    purl: { name: 'contiki-ng', namespace: 'contiki-ng' },
    // Makefile.include passes -DCONTIKI_VERSION_STRING="Contiki-NG-$(RELSTR)" with RELSTR from `git describe --tags
    // --always --dirty` ('release/v4.9', 'release/v4.9-12-g1a2b3c4-dirty'); os/contiki-main.c logs 'Starting '
    // CONTIKI_VERSION_STRING '\n' and the LwM2M device object keeps the bare string. A tree outside git gives
    // 'Contiki-NG' and an untagged one a bare hash: no release, nothing claimed.
    patterns: [banner('Contiki-NG-', /\0(?:Starting )?Contiki-NG-(?:release\/)?v?(\d+\.\d+(?:\.\d+)?)(?:-\d+-g[0-9a-f]{4,40})?(?:-dirty)?\n?\0/, 0.85)],
  },
  {
    id: 'contiki',
    name: 'contiki',
    type: 'operating-system',
    cpe: { part: 'o', vendor: 'contiki-os', product: 'contiki' },
    purl: { name: 'contiki', namespace: 'contiki-os' },
    // Contiki 2.x/3.0 (core/contiki-version.h): CONTIKI_VERSION_STRING "Contiki 3.0", printed by the platforms'
    // main as '%s' (AVR: '*******Booting %s*******'), 'CONTIKI_VERSION_STRING "\n"' or '" started. "'. The
    // development tree after 3.0 says 'Contiki 3.x': no release.
    patterns: [banner('Contiki ', /\0Contiki (\d+\.\d+(?:\.\d+)?)(?: started\. |\n)?\0/, 0.75)],
  },
  {
    id: 'riot',
    name: 'riot',
    type: 'operating-system',
    cpe: { part: 'o', vendor: 'riot-os', product: 'riot' },
    purl: { name: 'riot', namespace: 'riot-os' },
    // core/lib/init.c's CONFIG_BOOT_MSG_STRING: 'main(): This is RIOT! (Version: ' RIOT_VERSION ')', RIOT_VERSION
    // being `git describe` plus the branch name when not master ('2023.01', '2022.04-RC1', '2020.07.1-3-g1a2b3-mybranch').
    // Master between releases describes as '<next>-devel-…': not a release, not claimed; nor 'buildtest'/'UNKNOWN'.
    patterns: [banner('This is RIOT! (Version: ', /main\(\): This is RIOT! \(Version: (\d{4}\.\d{2}(?:\.\d+)?(?:-RC\d+)?)(?:-\d+-g[0-9a-f]{4,40})?(?:-(?!devel)[\w./-]{1,60})?\)\0/, 0.9)],
  },
  {
    id: 'vxworks',
    name: 'vxworks',
    type: 'operating-system',
    cpe: { part: 'o', vendor: 'windriver', product: 'vxworks' },
    purl: { name: 'vxworks', namespace: 'windriver' },
    // VxWorks' source is not public: the form is the kernel's vxWorksVersion string as device firmware keeps it
    // ('VxWorks5.5.1', 'VxWorks 6.9'), a string of its own. The WIND kernel version ('WIND version 2.6') is the
    // kernel's, not the product release, and alone gives nothing.
    patterns: [banner('VxWorks', /\0VxWorks ?(\d+\.\d+(?:\.\d+)?)\0/, 0.8)],
  },
  {
    id: 'lwip',
    name: 'lwip',
    type: 'library',
    cpe: { vendor: 'lwip_project', product: 'lwip' },
    purl: { name: 'lwip' },
    // The one run-time version string: the httpd app's HTTPD_SERVER_AGENT, "lwIP/" LWIP_VERSION_STRING
    // " (http://savannah.nongnu.org/projects/lwip)", in dynamic headers or in the 'Server: ' lines makefsdata writes
    // into fsdata. A development build ('2.2.0d') is not a release; a firmware that sets its own agent gives nothing.
    patterns: [banner('lwIP/', /lwIP\/(\d+\.\d+\.\d+(?:\.?rc\d+)?) \(http:\/\/savannah\.nongnu\.org\/projects\/lwip\)(?:\r\n)?/, 0.85)],
  },
  {
    id: 'ecos',
    name: 'ecos',
    type: 'operating-system',
    cpe: { part: 'o', vendor: 'ecoscentric', product: 'ecos' },
    purl: { name: 'ecos' },
    // eCos keeps its release only as integers (CYGNUM_KERNEL_VERSION_MAJOR/MINOR, CYGNUM_HAL_VERSION_*), and its
    // uname() copies them as one-digit strings; the version-bearing line of eCos firmware, 'eCos Release: %d.%d.%d'
    // (a vendor shell's build-tag print, the string FACT's eCos rule keys on), formats them at run time. The string
    // proves eCos present; the version comes from the constant arguments of the call that passes it
    // (ecosReleaseFromCode, confidence 0.8), else none (and so no CPE). The version is written as printed
    // ('3.0.0'); the CPE drops a zero release, as eCos names its releases ('2.0', '3.0', '1.3.1').
    patterns: [{ needle: 'eCos Release: %d.%d.%d', regex: /\0eCos Release: %d\.%d\.%d\r?\n?\0/, presence: true, confidence: 0.7, fromCode: ecosReleaseFromCode }],
    cpeVersion: (v) => ({ version: v.replace(/^(\d+\.\d+)\.0$/, '$1') }),
  },
];
