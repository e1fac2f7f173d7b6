// The filesystems handlers, in the order the driver tries them at one offset (see ../registry.ts).
import type { Handler } from '../handler.js';
import { extHandler } from './ext.js';
import { squashfsV4Handler } from './squashfs-v4.js';
import { squashfsV3Handler } from './squashfs-v3.js';
import { squashfsV2Handler } from './squashfs-v2.js';
import { cramfsHandler } from './cramfs.js';
import { romfsHandler } from './romfs.js';
import { ubiHandler } from './ubi.js';
import { ubifsHandler } from './ubifs.js';
import { jffs2Handler } from './jffs2.js';
import { fatHandler } from './fat.js';
import { iso9660Handler } from './iso9660.js';

export const filesystemsHandlers: Handler[] = [
  squashfsV4Handler,
  squashfsV3Handler,
  squashfsV2Handler,
  cramfsHandler,
  romfsHandler,
  extHandler,
  ubiHandler,
  ubifsHandler,
  jffs2Handler,
  fatHandler,
  iso9660Handler,
];
