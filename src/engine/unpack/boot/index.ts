// The boot handlers, in the order the driver tries them at one offset (see ../registry.ts).
import type { Handler } from '../handler.js';
import { uefiFvHandler } from './uefi-fv.js';

export const bootHandlers: Handler[] = [
  uefiFvHandler,
];
