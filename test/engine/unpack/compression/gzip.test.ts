import { describe } from 'vitest';
import { gzipHandler } from '../../../../src/engine/unpack/compression/gzip.js';
import { compressWith } from '../handler-harness.js';
import { compressionCases } from './compression-cases.js';

describe('gzip handler', () => {
  compressionCases(gzipHandler, (data) => compressWith('gzip', ['-c'], data));
});
