// Device numbers as Linux stores them in on-disk inodes (include/linux/kdev_t.h).

/**
 * Linux new_decode_dev: a 32-bit dev_t with the major in bits 8-19 and the minor split over bits 0-7 and 20-31.
 * Old-style 16-bit numbers (major << 8 | minor) decode the same way.
 */
export function decodeDev(dev: number): { major: number; minor: number } {
  return { major: (dev & 0xfff00) >> 8, minor: (dev & 0xff) | ((dev >> 12) & 0xfff00) };
}
