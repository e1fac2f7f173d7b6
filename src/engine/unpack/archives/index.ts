// The archives handlers, in the order the driver tries them at one offset (see ../registry.ts).
import type { Handler } from '../handler.js';

export const archivesHandlers: Handler[] = [];
