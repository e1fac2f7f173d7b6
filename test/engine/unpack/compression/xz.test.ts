import { describe } from 'vitest';
import { xzHandler } from '../../../../src/engine/unpack/compression/xz.js';
import { compressWith } from '../handler-harness.js';
import { compressionCases } from './compression-cases.js';

describe('xz handler', () => {
  compressionCases(xzHandler, (data) => compressWith('xz', ['-c'], data));
});
