// Device numbers as Linux stores them in on-disk inodes (include/linux/kdev_t.h), and the special inodes
// (devices, FIFOs, sockets) that the Linux filesystems hand to the sink the same way.
import type { EntryMeta, Sink } from '../handler.js';

export interface DeviceNumber {
  major: number;
  minor: number;
}

const S_IFMT = 0o170000;
const S_IFCHR = 0o020000;
const S_IFBLK = 0o060000;
const S_IFIFO = 0o010000;
const S_IFSOCK = 0o140000;

/**
 * Linux new_decode_dev: a 32-bit dev_t with the major in bits 8-19 and the minor split over bits 0-7 and 20-31.
 * Old-style 16-bit numbers (major << 8 | minor) decode the same way.
 */
export function decodeDev(dev: number): DeviceNumber {
  return { major: (dev & 0xfff00) >> 8, minor: (dev & 0xff) | ((dev >> 12) & 0xfff00) };
}

/**
 * Sends an inode of a special file type (`mode` with S_IFMT bits) to the sink: a character or block device with
 * its numbers and kind in meta.meta, a FIFO or a socket. `device` is only called for devices (it may read the
 * image). Returns false for any other file type, which the caller handles.
 */
export async function sinkSpecialInode(sink: Sink, path: string, mode: number, meta: EntryMeta, device: () => DeviceNumber | Promise<DeviceNumber>): Promise<boolean> {
  const type = mode & S_IFMT;
  if (type === S_IFCHR || type === S_IFBLK) {
    sink.special(path, 'device', { ...meta, meta: { ...meta.meta, ...(await device()), kind: type === S_IFCHR ? 'char' : 'block' } });
  } else if (type === S_IFIFO) sink.special(path, 'fifo', meta);
  else if (type === S_IFSOCK) sink.special(path, 'socket', meta);
  else return false;
  return true;
}
