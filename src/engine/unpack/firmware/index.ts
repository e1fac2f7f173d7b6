// The firmware handlers, in the order the driver tries them at one offset (see ../registry.ts).
import type { Handler } from '../handler.js';
import { androidSparseHandler } from './android-sparse.js';
import { armZimageHandler } from './arm-zimage.js';
import { bzimageHandler } from './bzimage.js';
import { deviceTreeHandler } from './device-tree.js';
import { fitHandler } from './fit.js';
import { intelHexHandler } from './intel-hex.js';
import { seamaHandler } from './seama.js';
import { srecHandler } from './srec.js';
import { tplinkSafeloaderHandler } from './tplink-safeloader.js';
import { tplinkHandler } from './tplink.js';
import { trxHandler } from './trx.js';
import { uimageHandler } from './uimage.js';

export const firmwareHandlers: Handler[] = [
  uimageHandler,
  trxHandler,
  tplinkHandler,
  tplinkSafeloaderHandler,
  seamaHandler,
  bzimageHandler,
  armZimageHandler,
  fitHandler,
  deviceTreeHandler,
  androidSparseHandler,
  intelHexHandler,
  srecHandler,
];
