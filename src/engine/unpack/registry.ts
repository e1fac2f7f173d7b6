// Every format handler the driver knows, as one list. Adding a format is one file plus one line in its
// group's index.ts.
import { archivesHandlers } from './archives/index.js';
import { bootHandlers } from './boot/index.js';
import { compressionHandlers } from './compression/index.js';
import { filesystemsHandlers } from './filesystems/index.js';
import { firmwareHandlers } from './firmware/index.js';
import type { Handler } from './handler.js';

export const handlers: Handler[] = [
  ...firmwareHandlers,
  ...bootHandlers,
  ...filesystemsHandlers,
  ...archivesHandlers,
  ...compressionHandlers,
];
