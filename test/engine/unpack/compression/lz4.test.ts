import { describe } from 'vitest';
import { lz4Handler } from '../../../../src/engine/unpack/compression/lz4.js';
import { compressWith } from '../handler-harness.js';
import { compressionCases } from './compression-cases.js';

describe('lz4 handler', () => {
  compressionCases(lz4Handler, (data) => compressWith('lz4', ['-c'], data));
});
