import { describe } from 'vitest';
import { zstdHandler } from '../../../../src/engine/unpack/compression/zstd.js';
import { compressWith } from '../handler-harness.js';
import { compressionCases } from './compression-cases.js';

describe('zstd handler', () => {
  compressionCases(zstdHandler, (data) => compressWith('zstd', ['-c'], data));
});
