// The archives handlers, in the order the driver tries them at one offset (see ../registry.ts).
import type { Handler } from '../handler.js';
import { arHandler } from './ar.js';
import { cpioHandler } from './cpio.js';
import { tarHandler } from './tar.js';
import { zipHandler } from './zip.js';

export const archivesHandlers: Handler[] = [tarHandler, zipHandler, cpioHandler, arHandler];
