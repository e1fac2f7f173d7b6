// Data files that quote product names without containing the product: udev's hardware database (vendor strings
// such as 'American Megatrends'), locale and message catalogues, man and info pages, ID lists, terminfo and
// time zones. A signature hit there is text about software, not software, so these files are not scanned.
import { globsMatcher } from '../file-index.js';

const TEXT_DATABASE_GLOBS = [
  '**/udev/hwdb.bin',
  '**/udev/hwdb.d/**',
  '**/etc/udev/hwdb.bin',
  '**/share/locale/**',
  '**/lib/locale/**',
  '**/share/i18n/**',
  '**/share/X11/locale/**',
  '**/share/man/**',
  '**/share/info/**',
  '**/share/doc/**',
  '**/share/hwdata/**',
  '**/share/misc/*.ids',
  '**/{pci,usb,pnp,oui}.ids',
  '**/share/terminfo/**',
  '**/lib/terminfo/**',
  '**/share/zoneinfo/**',
  '**/share/mime/**',
  '**/misc/magic.mgc',
  '**/*.mo',
  '**/gconv-modules.cache',
];

const isTextDatabase = globsMatcher(TEXT_DATABASE_GLOBS);

/** True for a file (by its path inside its filesystem) that is a text or data catalogue. */
export function inTextDatabase(fsPath: string): boolean {
  return isTextDatabase(fsPath.replace(/^\/+/, ''));
}
