// Command-line tools of embedded and distribution userlands: compression, GNU tools, util-linux, process and
// system tools, storage and file systems. The forms are those of real builds (see the samples' sources in the
// tests): a '--version' banner, or the bare PACKAGE_VERSION kept next to a fixed string of the same program.
import type { VersionSignature } from '../signature.js';
import { adjacent, banner, family, standalone } from './helpers.js';

const app = (id: string, cpe: VersionSignature['cpe'], patterns: VersionSignature['patterns'], extra: Partial<VersionSignature> = {}): VersionSignature =>
  family('application', id, cpe, patterns, extra);

export const toolSignatures: VersionSignature[] = [
  // bzip2recover's usage line; the library's BZ2_bzlibVersion() is 'version, date': '1.0.8, 13-Jul-2019'.
  app('bzip2', { vendor: 'bzip', product: 'bzip2' }, [
    banner('bzip2recover ', /bzip2recover (1\.0\.\d+): extracts blocks/, 0.9),
    banner('-Jul-', /\0(1\.0\.\d+), \d{1,2}-[A-Z][a-z]{2}-\d{4}\0/, 0.85),
    banner('-Sep-', /\0(1\.0\.\d+), \d{1,2}-[A-Z][a-z]{2}-\d{4}\0/, 0.85),
    banner('-Dec-', /\0(1\.0\.\d+), \d{1,2}-[A-Z][a-z]{2}-\d{4}\0/, 0.85),
  ]),
  // 'xz (XZ Utils) 5.4.1'; liblzma keeps LZMA_VERSION_STRING bare.
  app('xz', { vendor: 'tukaani', product: 'xz' }, [banner('(XZ Utils) ', /\0(?:xz|xzdec|lzmadec|lzmainfo) \(XZ Utils\) (5\.\d+\.\d+)\0/, 0.95)], {
    files: ['liblzma.so*'],
    standalone: [standalone('lzma_', /^5\.\d+\.\d+$/)],
  }),
  // The CLI keeps LZ4_VERSION_STRING apart from its welcome format; liblz4 keeps it bare.
  app('lz4', { vendor: 'lz4_project', product: 'lz4' }, [], {
    files: ['lz4', 'lz4c', 'liblz4.so*'],
    standalone: [standalone('LZ4', /^1\.\d+\.\d+$/)],
  }),
  // 'v1.5.4\0Zstandard CLI'; libzstd's ZSTD_versionString() is bare.
  app('zstd', { vendor: 'facebook', product: 'zstandard' }, [banner('Zstandard CLI', /\0v(1\.\d+\.\d+)\0{1,16}Zstandard CLI\0/, 0.9)], {
    files: ['libzstd.so*', 'zstd', 'pzstd'],
    standalone: [standalone('ZSTD_', /^1\.\d+\.\d+$/)],
  }),
  // Every util-linux program: '%s from %s\n' with 'util-linux 2.38.1'.
  app('util-linux', { vendor: 'kernel', product: 'util-linux' }, [banner('util-linux ', /\0util-linux (2\.\d+(?:\.\d+)?)(?:-rc\d)?\0/, 0.95)]),
  // version_etc() with PACKAGE_VERSION after the program's info line: "info '(coreutils) %s%s'\n\0009.1".
  app('coreutils', { vendor: 'gnu', product: 'coreutils' }, [adjacent("info '(coreutils) %s%s'", '\\d+\\.\\d+(?:\\.\\d+)?', 0.85)]),
  app('gzip', { vendor: 'gnu', product: 'gzip' }, [adjacent('file size changed while zipping', '1\\.\\d+(?:\\.\\d+)?', 0.85)]),
  app('cpio', { vendor: 'gnu', product: 'cpio' }, [adjacent('GNU cpio', '2\\.\\d+(?:\\.\\d+)?', 0.85)]),
  app('grep', { vendor: 'gnu', product: 'grep' }, [adjacent('GNU grep', '[23]\\.\\d+(?:\\.\\d+)?', 0.85)]),
  app('findutils', { vendor: 'gnu', product: 'findutils' }, [adjacent('GNU findutils', '4\\.\\d+\\.\\d+', 0.85)]),
  app('gawk', { vendor: 'gnu', product: 'gawk' }, [banner('GNU Awk ', /\0GNU Awk (\d+\.\d+\.\d+)\0/, 0.9)]),
  app('nano', { vendor: 'gnu', product: 'nano' }, [banner('GNU nano ', /\0GNU nano (\d+\.\d+(?:\.\d+)?)\0/, 0.9)]),
  app('jq', { vendor: 'jqlang', product: 'jq' }, [adjacent('Error: writing output failed: %s', '1\\.\\d+(?:\\.\\d+)?', 0.85)]),
  // 'sudoers 1.9.13p3' (the plugin's name and version), 'Sudo Logsrvd 1.9.13p3'.
  app('sudo', { vendor: 'sudo_project', product: 'sudo' }, [banner('sudoers ', /\0sudoers (1\.\d+\.\d+(?:p\d+)?)\0/, 0.9), banner('Sudo ', /\0Sudo (?:Audit Server|Logsrvd|Sendlog) (1\.\d+\.\d+(?:p\d+)?)\0/, 0.9)], {
    cpeVersion: (v) => {
      const m = /^(\d+\.\d+\.\d+)(p\d+)$/.exec(v);
      return m ? { version: m[1], update: m[2] } : { version: v };
    },
  }),
  app('procps-ng', { vendor: 'procps-ng_project', product: 'procps-ng' }, [banner('procps-ng ', /\0procps-ng (\d+\.\d+\.\d+(?:\.\d+)?)\0/, 0.95)]),
  app('sysstat', { vendor: 'sysstat_project', product: 'sysstat' }, [adjacent('sysstat version %s', '\\d+\\.\\d+\\.\\d+', 0.9)]),
  // '[origin software="rsyslogd" swVersion="8.2302.0" …' and 'rsyslogd  8.2302.0 (aka %4d.%2.2d) compiled with:'.
  app('rsyslog', { vendor: 'rsyslog', product: 'rsyslog' }, [banner('swVersion="', /software="rsyslogd" swVersion="(8\.\d+\.\d+)"/, 0.95)]),
  app('kexec-tools', { vendor: 'kexec-tools_project', product: 'kexec-tools' }, [banner('kexec-tools ', /\0kexec-tools (2\.\d+\.\d+)\0/, 0.9)]),
  app('dmidecode', { vendor: 'nongnu', product: 'dmidecode' }, [adjacent('dmidecode %s', '[23]\\.\\d+', 0.85)]),
  app('pciutils', { vendor: 'pciutils_project', product: 'pciutils' }, [banner('version ', /\0(?:lspci|setpci) version (3\.\d+\.\d+)\0/, 0.9)]),
  // Storage and file systems.
  app('squashfs-tools', { vendor: 'squashfs-tools_project', product: 'squashfs-tools' }, [banner(' version ', /\0(?:mksquashfs|unsquashfs|sqfscat|sqfstar) version (4\.\d+(?:\.\d+)?) \(\d{4}\/\d{2}\/\d{2}\)/, 0.95)]),
  app('mdadm', { vendor: 'mdadm_project', product: 'mdadm' }, [banner('mdadm - v', /mdadm - v(\d+\.\d+(?:\.\d+)?) - \d{4}-\d{2}-\d{2}/, 0.95)]),
  app('cryptsetup', { vendor: 'cryptsetup_project', product: 'cryptsetup' }, [adjacent('cryptsetup', '2\\.\\d+\\.\\d+', 0.8, true)], { files: ['cryptsetup', 'veritysetup', 'integritysetup'] }),
  app('ntfs-3g', { vendor: 'tuxera', product: 'ntfs-3g' }, [adjacent('\n%s v%s (libntfs-3g)\n\n', '20\\d{2}\\.\\d+\\.\\d+', 0.85)]),
  app('dosfstools', { vendor: 'dosfstools_project', product: 'dosfstools' }, [banner('.fat ', /\0(?:mkfs|fsck)\.fat (\d+\.\d+(?:\.\d+)?) \(\d{4}-\d{2}-\d{2}\)/, 0.95)]),
  app('f2fs-tools', { vendor: 'f2fs-tools_project', product: 'f2fs-tools' }, [banner('mkfs.f2fs', /\0\d{4}-\d{2}-\d{2}\0(1\.\d+\.\d+)\0mkfs\.f2fs\0/, 0.85)]),
  app('exfatprogs', { vendor: 'exfatprogs_project', product: 'exfatprogs' }, [adjacent('exfatprogs version : %s', '1\\.\\d+\\.\\d+', 0.9)]),
  app('btrfs-progs', { vendor: 'btrfs-progs_project', product: 'btrfs-progs' }, [banner('btrfs-progs v', /\0btrfs-progs v(\d+\.\d+(?:\.\d+)?)\0/, 0.9)]),
  app('fuse', { vendor: 'fuse_project', product: 'fuse' }, [adjacent('fusermount3 version: %s', '3\\.\\d+\\.\\d+', 0.85)]),
  app('smartmontools', { vendor: 'smartmontools', product: 'smartmontools' }, [banner('smartmontools release ', /smartmontools release (\d+\.\d+) dated \d{4}-\d{2}-\d{2}/, 0.95)]),
  app('hdparm', { vendor: 'hdparm_project', product: 'hdparm' }, [banner('get/set hard disk parameters - version v', /get\/set hard disk parameters - version v(\d+\.\d+), by /, 0.95)]),
  app('parted', { vendor: 'gnu', product: 'parted' }, [banner('GNU Parted ', /\0GNU Parted (\d+\.\d+(?:\.\d+)?)\n?\0/, 0.9)]),
  app('strace', { vendor: 'strace_project', product: 'strace' }, [banner('https://strace.io', /https:\/\/strace\.io\0{1,8}\d{4}\0{1,8}(\d+\.\d+(?:\.\d+)?)\0{1,8}strace\0/, 0.85)]),
  // The tools' '--version' text; a build-info line naming the assembler ('binutils: (GNU Binutils for Debian) 2.40'
  // in SeaBIOS-hppa) is the toolchain, not a component.
  app('binutils', { vendor: 'gnu', product: 'binutils' }, [banner('(GNU Binutils', /\0\(GNU Binutils(?: for [\w ]{1,40})?\) (2\.\d+(?:\.\d+)?)\0{1,8}Copyright \(C\) \d{4} Free Software Foundation/, 0.9)]),
  // `wget --version` prints 'GNU Wget %s, a non-interactive network retriever.' with the release as a string of its
  // own (1.10 to 1.2x; the zlib it was built with leaves a bare '1.2.13' too)
  app('wget', { vendor: 'gnu', product: 'wget' }, [], { files: ['wget'], standalone: [standalone('GNU Wget %s, a non-interactive network retriever.', /^1\.[12]\d(?:\.\d+)*$/, 0.7)] }),
  app('logrotate', { vendor: 'logrotate_project', product: 'logrotate' }, [banner('logrotate ', /\0logrotate (3\.\d+\.\d+) - Copyright \(C\)/, 0.95)]),
  app('lvm2', undefined, [banner('lvmpolld version: ', /lvmpolld version: (2\.\d+\.\d+)\(\d+\) \(\d{4}-\d{2}-\d{2}\)/, 0.95), banner(') (20', /\0(2\.\d+\.\d+)\(\d+\) \(\d{4}-\d{2}-\d{2}\)\0/, 0.85, true)], { files: ['lvm', 'lvmpolld', 'dmeventd'] }),
  app('lzop', undefined, [banner('lzop version: v', /lzop version: v(1\.\d+), [A-Z][a-z]{2} \d{1,2}\w{2} \d{4}/, 0.95)]),
  app('pigz', { vendor: 'zlib', product: 'pigz' }, [banner('pigz ', /\0pigz (2\.\d+(?:\.\d+)?)\0/, 0.85, true)], { files: ['pigz', 'unpigz'] }),
  app('usbutils', undefined, [banner('lsusb (usbutils) ', /lsusb \(usbutils\) (\d{3})\0/, 0.9)]),
  app('alsa-utils', undefined, [banner('alsactl version ', /\0alsactl version (1\.\d+\.\d+)\0/, 0.9)]),
  app('at', undefined, [banner('at version ', /\0at version (3\.\d+\.\d+)[\n\0]/, 0.85, true)], { files: ['at', 'atd'] }),
  app('qemu', { vendor: 'qemu', product: 'qemu' }, [banner(' version ', /\0(?:qemu-img|qemu-io|qemu-nbd|QEMU emulator) version (\d+\.\d+\.\d+)(?: \([^)\0]{1,80}\))?[\n\0]/, 0.95)]),
  app('patch', { vendor: 'gnu', product: 'patch' }, [adjacent('GNU patch', '2\\.\\d+(?:\\.\\d+)?', 0.85)]),
  app('ed', { vendor: 'gnu', product: 'ed' }, [adjacent('GNU %s %s\n', '1\\.\\d+(?:\\.\\d+)?', 0.8, true)], { files: ['ed', 'red'] }),
  app('lsof', { vendor: 'lsof_project', product: 'lsof' }, [adjacent('%s %s\n latest revision: %s\n', '4\\.\\d+\\.\\d+', 0.85)]),
  app('xfsprogs', undefined, [banner('xfsprogs', /\0xfsprogs\0%s version %s\n\0(\d+\.\d+\.\d+)\0/, 0.9)]),
  app('cabextract', { vendor: 'cabextract_project', product: 'cabextract' }, [adjacent('cabextract version %s\n', '1\\.\\d+', 0.85)]),
  app('lrzip', undefined, [adjacent('lrz%s version %s\n', '0\\.\\d+', 0.85)]),
  app('cifs-utils', { vendor: 'samba', product: 'cifs-utils' }, [adjacent('version: %s\n', '\\d+\\.\\d+', 0.8, true)], { files: ['cifs.upcall', 'cifs.idmap', 'getcifsacl', 'setcifsacl', 'mount.cifs', 'smbinfo'] }),
  // Firmware development and platform tools.
  app('u-boot-tools', { vendor: 'denx', product: 'u-boot' }, [adjacent('U-Boot mkimage %s', '20\\d{2}\\.\\d{2}(?:\\.\\d+)?', 0.85)]),
  app('dtc', undefined, [banner('DTC ', /\0DTC (1\.\d+\.\d+)\0Version: %s\n/, 0.9)]),
  app('dfu-util', undefined, [banner('dfu-util ', /\0dfu-util (0\.\d+)\n\0/, 0.9)]),
  app('openocd', { vendor: 'openocd', product: 'open_on-chip_debugger' }, [banner('Open On-Chip Debugger ', /\0Open On-Chip Debugger (0\.\d+\.\d+)(?:[-+][\w.+-]*)?[\n\0]/, 0.95)]),
  app('iucode-tool', undefined, [banner('iucode_tool ', /\0iucode_tool (2\.\d+\.\d+)\nCopyright/, 0.95)]),
  app('fwupd', undefined, [adjacent('Failed to start daemon: %s\n', '[12]\\.\\d+\\.\\d+', 0.8, true)], { files: ['fwupd'] }),
  app('tpm2-tools', undefined, [adjacent('Unknown option found: %c', '\\d+\\.\\d+(?:\\.\\d+)?', 0.8, true)], { files: ['tpm2', 'tss2', 'tpm2_*'] }),
  app('sbsigntool', undefined, [adjacent('%s %s\n', '0\\.\\d+\\.\\d+', 0.75, true)], { files: ['sbsign', 'sbverify', 'sbattach', 'sbvarsign', 'sbkeysync', 'sbsiglist'] }),
  app('lzip', undefined, [adjacent('Not enough memory.', '1\\.\\d+', 0.8, true)], { files: ['lzip', 'lzip.lzip'] }),
  // mokutil keeps its version before the Secure Boot variable names it reads.
  app('mokutil', undefined, [banner('SecureBoot', /\0(0\.\d+\.\d+)\0SecureBoot\0MokSB\0/, 0.85, true)], { files: ['mokutil'] }),
];
