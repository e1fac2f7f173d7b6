// The compression handlers, in the order the driver tries them at one offset (see ../registry.ts).
import type { Handler } from '../handler.js';
import { bzip2Handler } from './bzip2.js';
import { gzipHandler } from './gzip.js';
import { lz4LegacyHandler } from './lz4-legacy.js';
import { lz4Handler } from './lz4.js';
import { lzmaHandler } from './lzma.js';
import { xzHandler } from './xz.js';
import { zlibHandler } from './zlib.js';
import { zstdHandler } from './zstd.js';

export const compressionHandlers: Handler[] = [
  gzipHandler,
  xzHandler,
  bzip2Handler,
  zstdHandler,
  lz4Handler,
  lz4LegacyHandler,
  lzmaHandler,
  zlibHandler,
];
