// The filesystems handlers, in the order the driver tries them at one offset (see ../registry.ts).
import type { Handler } from '../handler.js';
import { extHandler } from './ext.js';
import { ubiHandler } from './ubi.js';

export const filesystemsHandlers: Handler[] = [
  extHandler,
  ubiHandler,
];
