import { describe } from 'vitest';
import { bzip2Handler } from '../../../../src/engine/unpack/compression/bzip2.js';
import { compressWith } from '../handler-harness.js';
import { compressionCases } from './compression-cases.js';

describe('bzip2 handler', () => {
  compressionCases(bzip2Handler, (data) => compressWith('bzip2', ['-c'], data));
});
