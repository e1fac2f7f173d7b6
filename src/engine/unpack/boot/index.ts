// The boot handlers, in the order the driver tries them at one offset (see ../registry.ts).
import type { Handler } from '../handler.js';
import { amiNvarHandler } from './ami-nvar.js';
import { cbfsHandler } from './cbfs.js';
import { efiAuthVariableHandler } from './efi-auth-variable.js';
import { efiSignatureListHandler } from './efi-signature-list.js';
import { insydeFdcHandler } from './insyde-fdc.js';
import { intelFlashDescriptorHandler } from './intel-flash-descriptor.js';
import { nvramVssHandler } from './nvram-vss.js';
import { phoenixEvsaHandler } from './phoenix-evsa.js';
import { uefiCapsuleHandler } from './uefi-capsule.js';
import { uefiFvHandler } from './uefi-fv.js';
import { uefiVarstoreHandler } from './uefi-varstore.js';

export const bootHandlers: Handler[] = [
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
];
