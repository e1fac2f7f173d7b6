// Every format handler the driver knows, as one flat list in the order the driver tries them at one offset.
// Adding a format is its file (or its folder, when it has helpers) under its kind's folder plus one line here.
import type { Handler } from './handler.js';
import { arHandler } from './archives/ar.js';
import { cpioHandler } from './archives/cpio.js';
import { tarHandler } from './archives/tar.js';
import { zipHandler } from './archives/zip/zip.js';
import { cbfsHandler } from './boot/cbfs/cbfs.js';
import { efiAuthVariableHandler } from './boot/efi-auth-variable.js';
import { efiSignatureListHandler } from './boot/efi-signature-list.js';
import { intelFlashDescriptorHandler } from './boot/intel-flash-descriptor.js';
import { amiNvarHandler } from './boot/nvram/ami-nvar.js';
import { insydeFdcHandler } from './boot/nvram/insyde-fdc.js';
import { phoenixEvsaHandler } from './boot/nvram/phoenix-evsa.js';
import { uefiVarstoreHandler } from './boot/nvram/uefi-varstore.js';
import { nvramVssHandler } from './boot/nvram/vss.js';
import { uefiCapsuleHandler } from './boot/uefi/capsule.js';
import { uefiFvHandler } from './boot/uefi/fv.js';
import { bzip2Handler } from './compression/bzip2.js';
import { gzipHandler } from './compression/gzip.js';
import { lz4LegacyHandler } from './compression/lz4-legacy.js';
import { lz4Handler } from './compression/lz4.js';
import { lzmaHandler } from './compression/lzma/lzma.js';
import { xzHandler } from './compression/xz.js';
import { zlibHandler } from './compression/zlib/zlib.js';
import { zstdHandler } from './compression/zstd.js';
import { cramfsHandler } from './filesystems/cramfs.js';
import { extHandler } from './filesystems/ext/ext.js';
import { fatHandler } from './filesystems/fat/fat.js';
import { iso9660Handler } from './filesystems/iso9660/iso9660.js';
import { jffs2Handler } from './filesystems/jffs2/jffs2.js';
import { romfsHandler } from './filesystems/romfs.js';
import { squashfsV2Handler } from './filesystems/squashfs/v2.js';
import { squashfsV3Handler } from './filesystems/squashfs/v3.js';
import { squashfsV4Handler } from './filesystems/squashfs/v4.js';
import { ubiHandler } from './filesystems/ubi.js';
import { ubifsHandler } from './filesystems/ubifs/ubifs.js';
import { androidSparseHandler } from './firmware/android-sparse.js';
import { armZimageHandler } from './firmware/arm-zimage.js';
import { bzimageHandler } from './firmware/bzimage.js';
import { deviceTreeHandler } from './firmware/device-tree/device-tree.js';
import { fitHandler } from './firmware/device-tree/fit.js';
import { optionRomHandler } from './firmware/option-rom.js';
import { seamaHandler } from './firmware/seama.js';
import { intelHexHandler } from './firmware/text-records/intel-hex.js';
import { srecHandler } from './firmware/text-records/srec.js';
import { tplinkSafeloaderHandler } from './firmware/tplink-safeloader.js';
import { tplinkHandler } from './firmware/tplink.js';
import { trxHandler } from './firmware/trx.js';
import { uimageHandler } from './firmware/uimage.js';

export const handlers: Handler[] = [
  // firmware
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
  optionRomHandler,
  // boot
  intelFlashDescriptorHandler,
  uefiCapsuleHandler,
  uefiFvHandler,
  uefiVarstoreHandler,
  nvramVssHandler,
  insydeFdcHandler,
  amiNvarHandler,
  phoenixEvsaHandler,
  efiAuthVariableHandler,
  efiSignatureListHandler,
  cbfsHandler,
  // filesystems
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
  // archives
  tarHandler,
  zipHandler,
  cpioHandler,
  arHandler,
  // compression
  gzipHandler,
  xzHandler,
  bzip2Handler,
  zstdHandler,
  lz4Handler,
  lz4LegacyHandler,
  lzmaHandler,
  zlibHandler,
];
